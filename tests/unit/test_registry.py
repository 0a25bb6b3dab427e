"""The command registry: one declaration per command, and everything derived from it agrees."""

import pytest

from paperdesk.core.commands import registry
from paperdesk.core.commands.parse import parse
from paperdesk.core.commands.guards import FETCHABLE, ONLINE, Guard
from paperdesk.core.commands.registry import COMMANDS, SPECS, Arg, CommandSpec, Rule
from paperdesk.core.commands.states import ANY, STATE_NAMES
from paperdesk.core.commands.views import VIEWS, DialogueView, Outcome
from paperdesk.core.commands.workflow import Workflow, WorkflowContext, new_workflow


def test_the_declarations_are_sound_and_every_handler_exists():
    assert registry.check() == []
    for spec in COMMANDS:
        assert callable(registry.handler(spec.name)), spec.name


def test_check_finds_a_bad_declaration(monkeypatch):
    bad = CommandSpec("bogus", Arg.NONE, "bogus", "x", (Rule(("no-such-state",)),), "meta:status",
                      enter_in=("select-new",))
    monkeypatch.setattr(registry, "COMMANDS", (*COMMANDS, bad))
    problems = registry.check()
    assert "bogus: unknown state 'no-such-state'" in problems
    assert "select-new: Enter runs both summarize and bogus" in problems


def test_the_machine_has_one_event_per_declared_command():
    events = {str(e.id) for e in Workflow.events}
    assert events == {c.name.replace("-", "_") for c in COMMANDS}


def test_enter_command_palette_and_completion_lists_come_from_the_registry():
    assert {s: registry.enter_command(s) for s in STATE_NAMES} == {
        "initial": None, "select-new": "summarize", "draft-summary": None, "summarized": None,
        "select-view": "open", "draft-sem-search": "open", "draft-research": "open", "draft-plan": None,
        "draft-discussion": "open"}
    assert registry.paper_commands() == ["summarize", "summary", "open", "remove"]
    assert "quit" not in registry.delegable_commands() and "sem-search" in registry.delegable_commands()
    assert {c.name for c in COMMANDS if not c.arg.needs_input} == {
        "notes", "save", "abandon", "list", "undo", "redo", "help", "status", "history", "clear", "dialogue", "quit",
        "close", "mode", "plan", "accept", "reject", "build", "discuss", "memory"}  # issues 13, 14, 16


def test_dialogue_is_declared_once_and_runs_in_every_state():
    spec = SPECS["dialogue"]
    assert spec.arg is Arg.NONE and spec.sources == ANY
    assert parse("dialogue").name == "dialogue"
    for state in STATE_NAMES:
        assert new_workflow(WorkflowContext(state=state)).refusal("dialogue") is None
    assert registry.handler("dialogue").__name__ == "dialogue"


def test_a_failed_guard_says_its_own_reason():
    context = WorkflowContext(state="select-new", forced_offline="started with --offline", downloaded=[False])
    wf = new_workflow(context)
    assert wf.refusal("summarize") == "summarize is not available " + FETCHABLE.refusal(context)
    assert "not downloaded yet" in wf.refusal("summarize")
    assert ONLINE.refusal(context) != FETCHABLE.refusal(context)
    pending = Guard("plan_pending", lambda c: False, lambda c: "now: no plan revision is pending; revise <feedback>")
    assert "no plan revision is pending" in pending.refusal(context)  # a guard's text is its own, not "offline"


def test_every_face_renders_every_view():
    from paperdesk.text_views import RENDERERS
    from paperdesk.tui.routing import OutcomeRouter

    assert set(RENDERERS) == set(VIEWS)
    assert set(OutcomeRouter(app=None).views()) == set(VIEWS)


def test_an_outcome_refuses_a_view_no_face_knows():
    class Chart:
        pass

    with pytest.raises(TypeError, match="not a view every face renders"):
        Outcome("x", "ok", "", Chart())
    assert Outcome("dialogue", "ok", "", DialogueView([])).view.turns == []


def test_the_registry_marks_every_command_that_discards_work():
    marked = {c.name for c in COMMANDS if c.discards}
    assert marked == {"abandon", "remove", "undo", "redo", "reject", "step", "clear", "untag"}
    assert registry.discards("step drop 2") and not registry.discards("step add search x")
    assert registry.discards("remove 3") and not registry.discards("save") and not registry.discards("")


def test_only_a_yes_answers_yes():
    from paperdesk.core.dispatch.confirm import is_yes

    assert all(is_yes(w) for w in ("y", "yes", "Yes.", "ok", "go ahead", "yes please"))
    assert not any(is_yes(w) for w in ("", "no", "n", "yes but keep the paper", "nah, leave it", "maybe"))
