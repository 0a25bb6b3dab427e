"""Research plans through the Desk and the shell: plan mode, review, edits, build, modes, resume.

The library, tracker and retrieval are real (SQLite, tantivy, MiniLM); generation comes from
FakeLLM (tests/fake_llm.py) and plans from the rule planner, because these tests are about
the workflow rows (which command runs where, what it changes, what it refuses), not prose.
The real models run the same scripts in test_plan_e2e.py.
"""

from __future__ import annotations

import io
import sys
import threading

import pytest

from fake_llm import FakeLLM
from paperdesk.core.desk.desk import Desk
from paperdesk.core.research.plan import COMPLETED, Plan
from paperdesk.core.commands.views import AgentActed, PlanUpdated, PlanView, ProgressUpdated
from paperdesk.shell import run_shell

pytestmark = pytest.mark.slow  # the real embedding model indexes the fixture paper

QUESTION = "research how does CiteSee help readers track citations?"


def shell(desk: Desk, script: str, keep_going: bool = False) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = run_shell(desk.settings, keep_going=keep_going, stdin=io.StringIO(script), out=out, err=err, desk=desk)
    return code, out.getvalue(), err.getvalue()


def test_plan_mode_research_revise_reject_drop_build_save(citesee_desk):
    desk = citesee_desk()
    streamed: list[PlanView] = []
    desk.subscribe(lambda e: streamed.append(e.view) if isinstance(e, PlanUpdated) else None)
    code, out, err = shell(desk, f"mode plan\n{QUESTION}\nrevise also list the datasets used\nstatus\n")
    assert code == 0, err
    assert "[research: initial -> draft-plan]" in out and "pending revision (accept or reject):" in out
    assert "state: draft-plan\n" in out and "mode: plan\n" in out
    assert [len(v.steps) for v in streamed] == list(range(1, len(streamed) + 1))  # the plan streamed step by step
    assert streamed[0].streaming and not streamed[-1].streaming
    before = desk.session.plan
    assert desk.session.plan_pending is not None and len(desk.session.plan_pending["steps"]) > len(before["steps"])

    code, out, err = shell(desk, "step drop 1\n")  # guard: a revision is pending
    assert code == 1 and "refused: step is not available now: a revision is pending; accept or reject" in err
    code, out, err = shell(desk, "reject\nstep add library_search citation history\nstep drop 3\nplan\n")
    assert code == 0, err
    assert desk.session.plan == before | {"made_by": desk.session.plan["made_by"]}  # back to the reviewed plan
    assert "+user" in desk.session.plan["made_by"]  # the plan records that the user edited it

    code, out, err = shell(desk, "build\nsave plan-report\n")
    assert code == 0, err
    assert "[build: draft-plan -> draft-research]" in out and "## How this was researched" in out
    assert desk.state == "draft-research" and desk.session.plan_run is not None
    assert desk.drafts.reports()[0].title == "plan-report"
    view = shell(desk, "plan\n")[1]
    assert view.count("✓") == len(before["steps"])  # every step of the built plan COMPLETED


def test_bad_edits_are_refused_with_the_reason_and_change_nothing(citesee_desk):
    desk = citesee_desk()
    assert desk.run("mode plan").ok and desk.run(QUESTION).ok
    plan = dict(desk.session.plan)
    cases = {
        "step drop 9": "there is no step 9",
        "step edit 1 k=many": "k takes a whole number",
        "step edit 1 id=4": "id cannot be edited",
        "step add telepathy x": "unknown tool 'telepathy'",
        "step move 1 7": "position 7 is outside",
        "step edit 1 iterate_over=nothing": "step 1",
        "step dance": "step: cannot read 'dance'",
        "plan frobnicate": "plan: unknown argument",
        "accept": "no revision is pending",
        "revise": "revise needs <feedback>",
    }
    for line, reason in cases.items():
        outcome = desk.run(line)
        assert outcome.status in ("error", "refused") and reason in outcome.message, (line, outcome.message)
        assert desk.session.plan == plan and desk.state == "draft-plan"
    broken = {**plan, "steps": plan["steps"] + [{"id": 9, "tool": "answer", "parameters": {}, "output_key": "x"}]}
    desk.session.plan = broken  # a plan damaged on disk: build is refused by its guard, which names the step
    desk._refresh_plan()
    assert "the plan is invalid (step 9: answer needs" in desk.run("build").message
    desk.session.plan = plan
    desk._refresh_plan()


def test_plan_edit_in_the_editor_valid_and_invalid(citesee_desk, tmp_path, monkeypatch):
    desk = citesee_desk()
    assert desk.run("mode plan").ok and desk.run(QUESTION).ok
    editor = tmp_path / "editor.py"
    editor.write_text("import sys, re\np = sys.argv[1]\nt = open(p).read()\n"
                      "t = t.replace('query = \"CiteSee', 'query = \"CiteSee history', 1)\n"
                      "open(p, 'w').write(t)\n")
    monkeypatch.setenv("EDITOR", f"{sys.executable} {editor}")
    monkeypatch.delenv("VISUAL", raising=False)
    code, out, err = shell(desk, "plan edit\n")
    assert code == 0, err
    assert "plan edited: 2 changes" in out
    assert desk.session.plan["steps"][0]["parameters"]["query"].startswith("CiteSee history")
    before = desk.session.plan
    editor.write_text("import sys\nopen(sys.argv[1], 'a').write('\\n[[steps]]\\nid = 1\\ntool = \"answer\"\\n')\n")
    code, out, err = shell(desk, "plan edit\n")
    assert code == 1 and "error: step 1: two steps have this id" in err
    assert desk.session.plan == before  # the invalid edit changed nothing


def test_plan_and_mode_persist_and_research_resume_reopens_an_unbuilt_plan(citesee_desk):
    desk = citesee_desk()
    assert desk.run("mode plan").ok and desk.run(QUESTION).ok and desk.run("revise also list the datasets").ok
    plan, pending = desk.session.plan, desk.session.plan_pending
    desk.close()
    again = citesee_desk()  # a new process: state, mode, plan and the pending revision are back
    assert again.state == "draft-plan" and again.session.mode == "plan"
    assert again.session.plan == plan and again.session.plan_pending == pending
    assert again.workflow.refusal("accept") is None and again.workflow.refusal("build") is not None
    assert again.run("accept").ok and again.run("list").ok and again.state == "select-view"
    outcome = again.run("research --resume")  # leaving draft-plan kept the plan
    assert outcome.ok and again.state == "draft-plan" and "reopened the plan" in outcome.message
    assert again.session.plan == pending
    assert again.run("abandon").ok and again.state == "initial" and again.session.plan is None
    assert "nothing to resume" in again.run("research --resume").message


def test_agent_mode_opens_the_most_cited_page_and_reader_mode_only_cites(citesee_desk):
    desk = citesee_desk()
    events = []
    desk.subscribe(events.append)
    outcome = desk.run(QUESTION)  # the default mode is agent
    assert outcome.ok and desk.state == "draft-research", outcome.message
    assert desk.session.draft.kind == "report" and outcome.view.sources and "[1]" in outcome.view.text
    acted = [e for e in events if isinstance(e, AgentActed)]
    assert len(acted) == 1 and acted[0].page is not None
    page = acted[0].page
    assert page.highlight and page.highlight in " ".join(page.text.split())  # the spot is on that page
    assert page.page == outcome.view.sources[0]["page"] and desk.session.reader == (page.paper_id, page.page)
    assert "opened" in outcome.message
    steps = [e for e in events if isinstance(e, ProgressUpdated) and e.progress.unit == "steps"]
    assert steps and steps[-1].progress.done == steps[-1].progress.total  # per-step progress for the status bar
    assert [r.id for r in desk.session.results] == [page.paper_id]  # lqs = cited papers
    assert desk.run("undo").status == "error" and desk.run("improve shorter").ok and desk.run("undo").ok

    events.clear()
    assert desk.run("mode reader").ok and desk.run(QUESTION).ok
    assert not [e for e in events if isinstance(e, AgentActed)]  # reader mode: citations only


def test_build_offline_is_refused_while_a_step_needs_the_network(citesee_desk):
    desk = citesee_desk(offline="false")
    assert desk.run("mode plan").ok and desk.run(QUESTION).ok
    assert desk.run("step add arxiv_search citation tools").ok
    desk.context.forced_offline = "started with --offline"
    refusal = desk.run("build")
    assert refusal.status == "refused"
    assert refusal.message == ("build is not available offline (started with --offline): step 3 needs the network; "
                               "drop it (step drop 3) or go online")
    assert desk.run("step drop 3").ok and desk.workflow.refusal("build") is None


def test_cancel_mid_build_keeps_the_run_and_resume_does_not_redo_steps(citesee_desk):
    writer = FakeLLM(delay=0.05)
    desk = citesee_desk(writer)
    assert desk.run("mode plan").ok and desk.run(QUESTION).ok
    threading.Thread(target=lambda: (writer.started.wait(30), desk.cancel()), daemon=True).start()
    outcome = desk.run("build")
    assert outcome.status == "cancelled" and "research --resume finishes it" in outcome.message
    assert desk.state == "draft-plan"
    tracker = desk._plan_tracker
    run = tracker.unfinished()[0]
    done = {t.step_id: t.attempts for t in tracker.tasks(run.id) if t.status == COMPLETED}
    assert 1 in done
    writer.delay = 0.0
    resumed = desk.run("research --resume")
    assert resumed.ok and desk.state == "draft-research", resumed.message
    assert {t.step_id: t.attempts for t in tracker.tasks(run.id) if t.step_id in done} == done  # not run again
    assert desk.session.plan_run == run.id and not tracker.unfinished()
    assert Plan.from_json(desk.session.plan).query == run.query


def test_mode_is_validated_and_printed_by_status(citesee_desk):
    desk = citesee_desk()
    assert "unknown mode 'fast'" in desk.run("mode fast").message
    assert desk.status().lines()[-3:-1] == ["mode: agent", "network: online"]
    assert desk.run("mode reader").ok and "mode: reader" in desk.status().lines()
