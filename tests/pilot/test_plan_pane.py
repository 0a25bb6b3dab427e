"""Plan mode from the keyboard: plan mode in the workbench, the Plan pane's keys, plan edit, build, Esc.

The writer is the real default GGUF (loaded once, short outputs); plans come from the rule planner so
the steps are known. Each test asserts on workflow state, the Desk's messages and the pane's view.
"""

import time

import pytest

from textual.widgets import TabbedContent, TextArea

from conftest import PAPERS
from paperdesk.core.research import Backends
from paperdesk.core.commands.views import CommandFinished, PlanUpdated
from paperdesk.tui.panes.plan import PlanPane
from paperdesk.tui.screens.plan_edit import PlanEditScreen
from paperdesk.tui.screens.confirm import ConfirmScreen
from tui_helpers import desk_events, pane_key, settle, type_commands

pytestmark = pytest.mark.slow
QUESTION = "research how does CiteSee help readers track citations?"


def make_app(workbench, paper: bool = True):
    app = workbench(model=paper, PAPERDESK_RESEARCH_STEP_TOKENS="8", PAPERDESK_RESEARCH_STEP_TIMEOUT="600",
                    PAPERDESK_ANSWER_K="2")
    desk = app._given_desk
    desk.research_backends = Backends(desk.backend if paper else None, None)  # rules plan: known steps
    if paper:
        desk.library.add_pdf(PAPERS / "2302.07302v1.pdf")
    return app


async def typed(pilot, *lines):
    """Type at the command line (the Plan pane, when focused, takes letters as its keys)."""
    pilot.app.command_line.input.focus()
    await type_commands(pilot, *lines)


def outcomes(messages):
    return [e.outcome for e in desk_events(messages, CommandFinished)]


def hold_first_answer(monkeypatch):
    """Step 2's first call waits for its cancel token (as a long generation would), so Esc lands mid-step
    however fast the machine is; the resumed call is the real tool."""
    from paperdesk.core.research import tools

    real, calls = tools.TOOL_FUNCS["answer"], []

    def answer(ctx, params, inputs):
        calls.append(params)
        if len(calls) == 1:
            while not ctx.cancel.cancelled:
                time.sleep(0.01)
            ctx.cancel.raise_if_cancelled()
        return real(ctx, params, inputs)

    monkeypatch.setitem(tools.TOOL_FUNCS, "answer", answer)
    return calls


async def test_plan_mode_review_with_the_pane_keys_build_escape_resume(workbench, monkeypatch):
    held = hold_first_answer(monkeypatch)
    app = make_app(workbench)
    messages = []
    async with app.run_test(size=(120, 36), message_hook=messages.append) as pilot:
        await type_commands(pilot, "mode plan", QUESTION)
        pane = app.main.query_one(PlanPane)
        assert app.desk.state == "draft-plan"
        assert app.main.query_one(TabbedContent).active == "tab-plan"
        streamed = desk_events(messages, PlanUpdated)
        assert streamed and streamed[0].view.streaming and pane.view is not None and len(pane.view.steps) == 2

        await type_commands(pilot, "revise also list the datasets used")
        assert pane.view.pending and any(kind == "added" for kind, _ in pane.view.diff)
        await pilot.press("f7")
        assert app.focused is pane
        assert pane.check_action("command", ("build",)) is None  # dimmed while a revision is pending
        await pilot.press("r")  # reject
        await settle(pilot)
        assert app.desk.session.plan_pending is None and not pane.view.pending

        await typed(pilot, "step add library_search citation history")
        await pilot.press("f7", "down", "down", "d")  # select step 3, drop it: asked first
        await settle(pilot, until=lambda: isinstance(app.screen, ConfirmScreen))
        assert "Drop step 3" in app.screen.question
        await pilot.press("n")  # no: the plan keeps it
        await settle(pilot)
        assert [s.id for s in pane.view.steps] == [1, 2, 3]
        await pilot.press("f7")
        await pane_key(pilot, "d")
        await settle(pilot, until=lambda: isinstance(app.screen, ConfirmScreen))
        await pilot.press("y")
        await settle(pilot)
        assert outcomes(messages)[-1].command == "step drop 3" and outcomes(messages)[-1].ok
        assert [s.id for s in pane.view.steps] == [1, 2]

        await pilot.press("f7", "up")
        await pane_key(pilot, "d")  # dropping step 1 would orphan step 2's input: refused, unchanged
        await settle(pilot, until=lambda: isinstance(app.screen, ConfirmScreen))
        await pilot.press("y")
        await settle(pilot)
        assert outcomes(messages)[-1].status == "error" and "passages_1" in outcomes(messages)[-1].message
        assert [s.id for s in pane.view.steps] == [1, 2]

        await pilot.press("f7")
        await pane_key(pilot, "m")  # move prefills the command line
        assert app.command_line.input.value == "step move 1 "

        app.command_line.input.value = ""
        await pilot.press("f7")
        await pane_key(pilot, "b")  # build; Esc once step 1 is done: cancelled, and the run stays resumable
        await settle(pilot, until=lambda: bool(held))  # step 1 done, step 2 running
        await pilot.press("escape")
        await settle(pilot)
        last = outcomes(messages)[-1]
        assert last.status == "cancelled" and "research --resume" in last.message, last
        assert app.desk.state == "draft-plan" and len(app.desk._plan_tracker.unfinished()) == 1
        run = app.desk._plan_tracker.unfinished()[0]
        first = app.desk._plan_tracker.task(run.id, 1, -1)
        assert first.status == "COMPLETED"

        await typed(pilot, "research --resume")
        assert outcomes(messages)[-1].ok, outcomes(messages)[-1]
        assert not app.desk._plan_tracker.unfinished()
        assert app.desk._plan_tracker.task(run.id, 1, -1).started == first.started  # step 1 was not run again
        assert app.desk.state == ("draft-research" if app.desk.session.results else "initial")  # cited papers?
        assert [s.status for s in pane.view.steps] == ["COMPLETED", "COMPLETED"]
        live = [e.view for e in desk_events(messages, PlanUpdated) if e.view.run_id is None]
        assert any(r.status == "IN_PROGRESS" for v in live for r in v.steps)  # the icons changed live
        assert "## How this was researched" in app.desk.draft_view().text


async def test_plan_edit_in_the_text_area(workbench):
    app = make_app(workbench, paper=False)  # planning and editing need no model and no paper
    messages = []
    async with app.run_test(size=(120, 36), message_hook=messages.append) as pilot:
        await type_commands(pilot, "mode plan", QUESTION)
        await pilot.press("f7", "e")
        await settle(pilot, until=lambda: isinstance(app.screen, PlanEditScreen))
        area = app.screen.query_one(TextArea)
        area.text = area.text.replace('query = "CiteSee', 'query = "CiteSee history', 1)
        await pilot.press("ctrl+s")
        await settle(pilot)
        assert outcomes(messages)[-1].ok, outcomes(messages)[-1]
        assert app.desk.session.plan["steps"][0]["parameters"]["query"].startswith("CiteSee history")

        before = app.desk.session.plan
        await pilot.press("f7", "e")
        await settle(pilot, until=lambda: isinstance(app.screen, PlanEditScreen))
        area, ran = app.screen.query_one(TextArea), len(outcomes(messages))
        area.text = "steps = 3"
        await pilot.press("ctrl+s")
        await pilot.pause(0.3)
        assert isinstance(app.screen, PlanEditScreen) and area.text == "steps = 3"  # open, the text kept
        assert "a step must be an object" in str(app.screen.query_one("#plan-edit-hint").render())

        broken = app.screen.toml.replace('tool = "', 'tool = ', 1)  # an unclosed string: invalid TOML
        area.text = broken
        line = next(n for n, text in enumerate(broken.splitlines(), 1) if text.startswith("tool = "))
        await pilot.press("ctrl+s")
        await pilot.pause(0.3)
        hint = str(app.screen.query_one("#plan-edit-hint").render())
        assert isinstance(app.screen, PlanEditScreen) and area.text == broken
        assert "not valid TOML" in hint and f"at line {line}" in hint and area.cursor_location[0] == line - 1
        await pilot.press("escape")
        await settle(pilot)
        assert app.screen is app.main and app.desk.session.plan == before and len(outcomes(messages)) == ran


async def test_on_start_a_killed_run_resumes_without_redoing_its_steps(workbench):
    """A run a kill -9 left IN_PROGRESS (step 1 done) is finished on start by research --resume, as an
    unfinished discussion is; step 1 is not run again and the report lands in the draft."""
    from paperdesk.core.research import Tracker
    from paperdesk.core.research.rules import rule_plan
    from paperdesk.core.research.tools import ToolContext, library_search
    from paperdesk.core.research.tracker import WHOLE

    app = make_app(workbench)
    desk = app._given_desk
    plan = rule_plan("how does CiteSee help readers track citations?")
    tracker = Tracker.for_library(desk.library)
    run_id = tracker.new_run(plan)  # left IN_PROGRESS, as a kill -9 leaves it, with its search done
    found = library_search(ToolContext(desk.library, None, desk.settings), plan.steps[0].parameters, {})
    tracker.ensure_task(run_id, 1, WHOLE, None, plan.steps[0].output_key)
    tracker.start(run_id, 1, WHOLE)
    tracker.complete(run_id, 1, WHOLE, found, 0.1)
    searched = tracker.task(run_id, 1, WHOLE)
    tracker.close()
    messages = []
    async with app.run_test(size=(120, 36), message_hook=messages.append) as pilot:
        await settle(pilot, until=lambda: any(o.command == "research --resume" for o in outcomes(messages)))
        await settle(pilot)
        resumed = [o for o in outcomes(messages) if o.command == "research --resume"]
        assert len(resumed) == 1 and resumed[0].ok, resumed
        assert not app.desk._plan_tracker.unfinished() and app.desk.session.plan_run == run_id
        again = app.desk._plan_tracker.task(run_id, 1, WHOLE)
        assert again.started == searched.started and again.attempts == searched.attempts  # not run again
        assert "## How this was researched" in app.desk.draft_view().text
        assert app.main.query_one(PlanPane).view.run_id == run_id


async def test_on_start_an_unbuilt_plan_reopens_and_an_older_unfinished_run_is_offered(workbench):
    """A plan under review that is newer than the unfinished run: the plan reopens in draft-plan (nothing
    runs), and the start message says how to finish the run."""
    from paperdesk.core.research import Tracker
    from paperdesk.core.research.rules import rule_plan

    app = make_app(workbench, paper=False)
    desk = app._given_desk
    tracker = Tracker.for_library(desk.library)
    run_id = tracker.new_run(rule_plan("how do readers track citations?"))  # left IN_PROGRESS, as a kill -9 leaves it
    tracker.close()
    assert desk.run("mode plan").ok and desk.run(QUESTION).ok
    messages = []
    async with app.run_test(size=(120, 36), message_hook=messages.append) as pilot:
        await settle(pilot)
        message = str(app.command_line.query_one("#command-message").render())
        assert f"research run {run_id}" in message and "then research --resume finishes it" in message
        assert not outcomes(messages) and app.desk.state == "draft-plan"  # nothing was started
        assert len(app.desk._plan_tracker.unfinished()) == 1
        assert app.main.query_one(TabbedContent).active == "tab-plan"
        assert app.main.query_one(PlanPane).view.query == QUESTION.removeprefix("research ")
