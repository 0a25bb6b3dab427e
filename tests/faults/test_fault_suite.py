"""The standing fault suite: kills, two writers, a full disk, hostile HTTP, bad input.

CI-sized by default (20 kill -9s, seeded); PAPERDESK_FAULT_KILLS=200 runs a
longer one and PAPERDESK_FAULT_SEED picks another seed. Every trial ends
with: the library opens, integrity_check ok, chunks = keyword docs = vectors
by id, no stray files, nothing whose add returned is lost.
"""

from __future__ import annotations

import os
import random
from pathlib import Path

import pytest

from conftest import PAPERS
from paperdesk.bench.faults_kill import Tally, Zygote, concurrent_trials, kill_trials
from paperdesk.bench import faults_misc as misc

pytestmark = pytest.mark.slow
KILLS = int(os.environ.get("PAPERDESK_FAULT_KILLS", "20"))
SEED = int(os.environ.get("PAPERDESK_FAULT_SEED", "11"))
SOURCES = [PAPERS / "2304.02623v1.pdf", PAPERS / "papermage.pdf"]


@pytest.fixture(scope="module")
def zygote_home(tmp_path_factory) -> Path:
    return tmp_path_factory.mktemp("faults") / "home"


@pytest.fixture(scope="module")
def zygote(zygote_home: Path):
    zygote_home.mkdir(parents=True, exist_ok=True)
    worker = Zygote(zygote_home, SOURCES)
    yield worker
    worker.close()


@pytest.fixture
def zsettings(zygote_home: Path, tmp_path: Path):
    from paperdesk.core.config import load_settings

    return load_settings(environ={"PAPERDESK_HOME": str(zygote_home)}, path=tmp_path / "none.toml")


def _clean(tally: Tally) -> bool:
    """Every trial ran clean and nothing whose add returned was lost."""
    return tally.tries > 0 and tally.clean == tally.tries and tally.lost == 0


def test_kill_minus_nine_during_add(zygote, zsettings, embedder):
    tally = Tally("kill add")
    kill_trials(zygote, zsettings, embedder, "add", KILLS - KILLS // 5, random.Random(SEED), 2.5, tally)
    assert _clean(tally), tally.problems


@pytest.mark.parametrize("op", ["summarize", "research"])
def test_kill_minus_nine_during_model_work(zygote, zsettings, embedder, op):
    tally = Tally(f"kill {op}")
    kill_trials(zygote, zsettings, embedder, op, max(1, KILLS // 10), random.Random(SEED + len(op)), 3.0, tally)
    assert _clean(tally), tally.problems


@pytest.mark.parametrize("same", [False, True], ids=["two-papers", "same-pdf"])
def test_two_writer_processes_at_once(zygote, zsettings, embedder, same):
    tally = Tally("writers")
    concurrent_trials(zygote, zsettings, embedder, 1, random.Random(SEED), tally, same_paper=same)
    assert _clean(tally), tally.problems


def test_disk_full_injected_at_every_write_stage(settings, embedder):
    tally = Tally("disk full injected")
    misc.injected_disk_full_trials(settings, embedder, SOURCES[0], tally)
    assert _clean(tally), tally.problems


@pytest.mark.skipif(not misc.can_mount_tmpfs(), reason="mounting a tmpfs needs root; the injected test covers it")
def test_disk_full_on_a_real_small_tmpfs(settings, embedder, tmp_path):
    tally = Tally("disk full tmpfs")
    misc.tmpfs_disk_full_trials(tmp_path, settings, embedder, SOURCES, tally, leave_kb=(40, 1200))
    assert _clean(tally), tally.problems
