"""Bad input that used to end in a traceback: each gives one clear line now and changes nothing.

Huge numbers in arguments and settings, a config path that is a folder or TOML
nested 50,000 deep, a lock file that is a folder, a database overwritten with
random bytes, a closed pipe on stdout, and an unreadable viewer command.
"""

from __future__ import annotations

import os
import random
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import PAPERS
from paperdesk.bench.faults_misc import one_line_error, run_cli
from paperdesk.core.config import load_settings
from paperdesk.core.errors import ConfigError

ROOT = Path(__file__).resolve().parents[2]
HUGE = "9" * 23


def _one_line(argv: list[str], env: dict[str, str] | None = None) -> str:
    """The error line of a command that must fail with one line (progress lines of an add aside)."""
    code, err = run_cli(argv, env)
    kept = "\n".join(ln for ln in err.splitlines() if ln not in ("parse...", "embed...", "index..."))
    assert one_line_error(code, kept) == [], err
    return kept


def test_huge_turns_and_run_numbers_are_usage_errors(tmp_home):
    assert "at most 50" in _one_line(["discuss", "1", "--turns", HUGE])
    assert "at most 50" in _one_line(["discuss", "1", "--every", HUGE])
    assert "run number" in _one_line(["research", "--resume", HUGE])


@pytest.mark.parametrize("key,value", [("search", "candidates = 99999999999999999999"),
                                       ("search", "candidates = 9223372036854775807"),
                                       ("llm", "n_ctx = 99999999999999999999"),
                                       ("llm", "n_ctx = 64"),
                                       ("answer", "k = 99999999999")])
def test_config_integers_out_of_range_are_refused_at_load(tmp_path, key, value):
    path = tmp_path / "config.toml"
    path.write_text(f"[{key}]\n{value}\n")
    with pytest.raises(ConfigError, match=r"from \d+ to \d+"):
        load_settings(environ={}, path=path)


def test_config_in_range_still_loads(tmp_path):
    path = tmp_path / "config.toml"
    path.write_text("[search]\ncandidates = 5000\n[llm]\nn_ctx = 512\n")
    settings = load_settings(environ={"PAPERDESK_ANSWER_K": "12"}, path=path)
    assert (settings["search.candidates"], settings["llm.n_ctx"], settings["answer.k"]) == (5000, 512, 12)


def test_config_path_that_is_a_folder(tmp_home, tmp_path):
    assert "is a folder" in _one_line(["list"], {"PAPERDESK_CONFIG": str(tmp_path)})


def test_config_nested_fifty_thousand_deep(tmp_home, tmp_path):
    path = tmp_path / "deep.toml"
    path.write_text("a = " + "[" * 50_000 + "]" * 50_000 + "\n")
    assert "nested too deeply" in _one_line(["list"], {"PAPERDESK_CONFIG": str(path)})


def test_lock_file_that_is_a_folder(tmp_home):
    (tmp_home / "write.lock").mkdir()
    err = _one_line(["add", str(PAPERS / "2302.07302v1.pdf")])
    assert "write.lock is a folder" in err


@pytest.fixture
def damaged_home(library, tmp_home) -> Path:
    """A library with a paper whose database has random bytes written over its second half."""
    library.add_pdf(PAPERS / "2302.07302v1.pdf")
    library.close()
    db = tmp_home / "library.sqlite"
    size = db.stat().st_size
    with open(db, "r+b") as fh:
        fh.seek(size // 2)
        fh.write(random.Random(1).randbytes(size // 2))
    return tmp_home


@pytest.mark.parametrize("argv", [["list"], ["search", "citations"], ["reindex"],
                                  ["add", str(PAPERS / "papermage.pdf")]], ids=["list", "search", "reindex", "add"])
def test_damaged_database_names_the_doctor(damaged_home, argv):
    err = _one_line(argv)
    assert "paperdesk doctor" in err


def _paperdesk(*args: str) -> list[str]:
    return [sys.executable, "-m", "paperdesk", *args]


@pytest.mark.parametrize("argv", [["config", "--json"], ["config", "--keys"], ["list", "--json"], ["--help"]])
def test_a_closed_pipe_on_stdout_ends_quietly(tmp_home, argv):
    read, write = os.pipe()
    os.close(read)  # `| head` that has already gone: every write gets EPIPE
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    try:
        done = subprocess.run(_paperdesk(*argv), stdout=write, stderr=subprocess.PIPE, env=env, timeout=120,
                              cwd=ROOT)
    finally:
        os.close(write)
    assert done.stderr.decode() == ""
    assert done.returncode in (0, 141)


def test_unbalanced_quote_in_pdf_viewer_is_a_clear_refusal(tmp_path):
    from paperdesk.core.library.external import ViewerError, plan_viewer

    with pytest.raises(ViewerError, match="reader.pdf_viewer .* quotes"):
        plan_viewer(tmp_path / "x.pdf", 2, 'zathura "--page={page} {file}')


def test_huge_page_in_a_command_is_refused():
    from paperdesk.core.commands.parse import CommandError, parse

    with pytest.raises(CommandError, match="too large"):
        parse("open 1 " + HUGE)
