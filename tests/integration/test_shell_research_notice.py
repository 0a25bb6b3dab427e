"""the line shell names `research --resume` on start when a research run did not finish.

Real Desk, SQLite tracker and shell; no model is loaded (none is needed to start and to say it).
"""

from __future__ import annotations

import io

import pytest

from paperdesk.core.desk.desk import Desk
from paperdesk.core.research import Backends, Tracker
from paperdesk.core.research.rules import rule_plan
from paperdesk.shell import run_shell
from settings_for import NO_MODEL, settings_for

pytestmark = pytest.mark.slow  # the Desk opens the real embedding model's library


@pytest.fixture
def desk(tmp_path, embedder):
    made = Desk(settings_for(tmp_path / "home", **NO_MODEL), embedder=embedder)
    yield made
    made.close()


def start_shell(desk: Desk, script: str = "status\n") -> str:
    out, err = io.StringIO(), io.StringIO()
    run_shell(desk.settings, stdin=io.StringIO(script), out=out, err=err, desk=desk)
    return out.getvalue()


def killed_run(desk: Desk, question: str) -> int:
    tracker = Tracker.for_library(desk.library)
    try:
        return tracker.new_run(rule_plan(question))  # IN_PROGRESS, as a kill -9 mid-run leaves it
    finally:
        tracker.close()


def test_no_unfinished_run_no_notice(desk):
    assert "research --resume" not in start_shell(desk)


def test_an_unfinished_run_is_named_with_research_resume(desk):
    run_id = killed_run(desk, "how do readers track citations?")
    out = start_shell(desk)
    first = out.splitlines()[0]
    assert first == (f"[research run {run_id} ('how do readers track citations?') did not finish: "
                     "research --resume finishes it without redoing its steps]")


def test_a_newer_plan_under_review_comes_first(desk):
    run_id = killed_run(desk, "how do readers track citations?")
    desk.research_backends = Backends(None, None)  # the rule planner: planning needs no model
    assert desk.run("mode plan").ok and desk.run("research how do readers track citations?").ok
    out = start_shell(desk)
    assert (f"[research run {run_id} ('how do readers track citations?') did not finish: build or abandon the plan "
            "under review, then research --resume finishes it]") in out
