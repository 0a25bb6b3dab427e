"""Research plans end to end through `paperdesk shell` with the real models: SmolLM2 plans, Gemma writes.

Scripts: plan mode -> research -> revise -> reject -> step add/drop -> build -> save; agent mode
research -> report with the cited page opened; kill -9 mid-build -> research --resume finishes
without redoing steps. Outputs are tiny (a few tokens per step, 3 passages) and the models are the
session's shared ones (tests/conftest.py), so this stays short.
"""

from __future__ import annotations

import io
import os
import signal
import subprocess
import sys
import time

import pytest

from paperdesk.core.desk.desk import Desk
from paperdesk.core.research import Backends, Tracker
from paperdesk.core.research.plan import COMPLETED, IN_PROGRESS
from paperdesk.core.research.tracker import WHOLE
from paperdesk.core.commands.views import AgentActed
from paperdesk.shell import run_shell
from library_homes import copy_home, indexed_home
from settings_for import settings_for

pytestmark = pytest.mark.slow
QUESTION = "How does CiteSee show citations readers have already seen?"
SHORT = {"PAPERDESK_RESEARCH_STEP_TOKENS": "16", "PAPERDESK_RESEARCH_MAX_TOKENS": "24",
         "PAPERDESK_ANSWER_K": "3", "PAPERDESK_RESEARCH_STEP_TIMEOUT": "600"}


@pytest.fixture(scope="module")
def base_home(tmp_path_factory, embedder, citesee_pdf):
    return indexed_home(tmp_path_factory, embedder, citesee_pdf, "plan-e2e")


@pytest.fixture
def home(base_home, tmp_path):
    return copy_home(base_home, tmp_path)


@pytest.fixture
def real_desk(home, embedder, local_backend, planner_backend):
    desks = []

    def make() -> Desk:
        desk = Desk(settings_for(home, **SHORT), backend=local_backend, embedder=embedder)
        desk.research_backends = Backends(local_backend, planner_backend, "smollm2")
        desks.append(desk)
        return desk

    yield make
    for desk in desks:
        desk.close()


def shell(desk: Desk, script: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = run_shell(desk.settings, stdin=io.StringIO(script), out=out, err=err, desk=desk)
    return code, out.getvalue(), err.getvalue()


def test_plan_mode_research_revise_reject_drop_build_save(real_desk):
    desk = real_desk()
    code, out, err = shell(desk, f"mode plan\nresearch {QUESTION}\nrevise also list the methods used\nreject\n"
                                 "step add library_search citation history\nstep frobnicate 2\n")
    assert code == 1 and "error: step: cannot read 'frobnicate 2'" in err  # a bad edit stops the script ...
    plan = desk.session.plan
    assert plan["made_by"].startswith(("model:smollm2", "rules")) and "+user" in plan["made_by"]
    added = plan["steps"][-1]
    assert added["tool"] == "library_search" and added["parameters"]["query"] == "citation history"
    assert desk.state == "draft-plan" and desk.session.plan_pending is None  # ... and changed nothing

    code, out, err = shell(desk, f"step drop {added['id']}\nbuild\nsave\nstatus\n")
    assert code == 0, err
    assert "[build: draft-plan -> draft-research]" in out and "## How this was researched" in out
    assert "state: draft-research\n" in out and "mode: plan\n" in out
    assert len(desk.session.plan["steps"]) == len(plan["steps"]) - 1
    report = desk.drafts.reports()[0]
    assert "[1]" in report.text and report.sources and report.sources[0]["paper_id"] == desk.session.results[0].id


def test_agent_mode_research_writes_a_report_and_opens_the_cited_page(real_desk):
    desk = real_desk()
    acted = []
    desk.subscribe(lambda e: acted.append(e) if isinstance(e, AgentActed) else None)
    code, out, err = shell(desk, f"research {QUESTION}\nstatus\n")
    assert code == 0, err
    assert "mode: agent\n" in out and "## How this was researched" in out
    assert desk.state == "draft-research" and desk.session.draft.kind == "report"
    page = acted[0].page
    assert "opened" in out and page.highlight in " ".join(page.text.split())
    assert desk.session.reader == (page.paper_id, page.page)


def test_kill_9_mid_build_then_resume_finishes_without_redoing_steps(real_desk, home):
    env = {**os.environ, **SHORT, "PAPERDESK_HOME": str(home), "PYTHONPATH": os.getcwd()}
    proc = subprocess.Popen([sys.executable, "-m", "paperdesk", "shell"], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env)
    proc.stdin.write(f"mode plan\nresearch {QUESTION}\nstep add library_search citation history\nbuild\n")
    proc.stdin.flush()
    tracker = Tracker(home / "library.sqlite")
    try:
        deadline = time.monotonic() + 300
        while True:  # kill once one step is done and another one runs
            runs = tracker.unfinished()
            rows = {t.step_id: t for t in tracker.tasks(runs[0].id) if t.iteration == WHOLE} if runs else {}
            done = [r for r in rows.values() if r.status == COMPLETED]
            if done and any(r.status == IN_PROGRESS for r in rows.values()):
                break
            assert time.monotonic() < deadline and proc.poll() is None, f"the build never got going: {rows}"
            time.sleep(0.02)
        proc.send_signal(signal.SIGKILL)
        proc.wait(30)
        run_id = runs[0].id
        finished_before = {r.step_id: r.started for r in tracker.tasks(run_id)
                           if r.status == COMPLETED and r.iteration == WHOLE}
    finally:
        if proc.poll() is None:
            proc.kill()
        tracker.close()

    desk = real_desk()  # a new process: the session resumes in draft-plan, the run is unfinished
    assert desk.state == "draft-plan"
    code, out, err = shell(desk, "research --resume\nplan\n")
    assert code == 0, err
    assert desk.session.plan_run == run_id and desk.state in ("draft-research", "initial")
    after = {r.step_id: r.started for r in desk._plan_tracker.tasks(run_id) if r.iteration == WHOLE}
    assert all(after[s] == started for s, started in finished_before.items())  # not run again
    assert all(r.status in (COMPLETED, "FAILED", "SKIPPED") for r in desk._plan_tracker.tasks(run_id))
    assert out.count("✓") >= len(finished_before)
