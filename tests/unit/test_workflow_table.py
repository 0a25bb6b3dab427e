"""Every command in every state, against the command table of shared/spec/workflow.md.

The expected table (tests/spec_table.py) is copied from the spec by hand, not
generated from the model's RULES, so a drift between spec and model fails here.
"""

import pytest
from statemachine.exceptions import TransitionNotAllowed

from paperdesk.core.commands.parse import COMMANDS
from paperdesk.core.commands.workflow import STATE_NAMES, WorkflowContext, new_workflow
from spec_table import ALL, GUARD_FACTS, SPEC_TABLE

SAME = None
CELLS = [(state, command) for state in sorted(ALL) for command in sorted(SPEC_TABLE)]


def machine(state, command=""):
    return new_workflow(WorkflowContext(state=state, **GUARD_FACTS.get(command, {})))


def test_the_table_covers_every_state_and_command():
    assert set(STATE_NAMES) == ALL
    assert {c.name for c in COMMANDS} == set(SPEC_TABLE)


@pytest.mark.parametrize("state, command", CELLS)
def test_command_in_state(state, command):
    allowed = SPEC_TABLE[command].get(state)
    wf = machine(state, command)
    refusal = wf.refusal(command)
    if allowed is None:
        assert refusal is not None and refusal.startswith(f"{command} is not available in {state}: ")
        assert len(refusal.split(": ", 1)[1]) > 20  # says what would enable it
        assert command not in wf.enabled_commands()
        with pytest.raises(TransitionNotAllowed):
            wf.apply(command, count=1)
        assert wf.state == state  # a refused command changes nothing
        return
    assert refusal is None and command in wf.enabled_commands()
    found, empty = allowed
    assert wf.apply(command, count=1) == (state, found or state)
    other = machine(state, command)
    assert other.apply(command, count=0) == (state, empty or state)


def test_refusals_name_the_fix():
    assert machine("select-view").refusal("improve") == (
        "improve is not available in select-view: summarize a paper first (summarize <n>), "
        "or run sem-search <query> or research <query>")
    for command in ("find", "list", "sem-search", "research"):
        assert "save it (save) or discard it (abandon)" in machine("draft-summary").refusal(command)
    assert "already saved" in machine("summarized").refusal("save")
    assert "find papers first" in machine("initial").refusal("summarize")


def test_list_in_a_research_report_waits_for_save():
    unsaved = machine("draft-research")
    assert unsaved.refusal("list").startswith("list is not available now: the report's papers are the current")
    assert "save [name] keeps the report, then list works" in unsaved.refusal("list")
    assert "list" not in unsaved.enabled_commands()
    saved = new_workflow(WorkflowContext(state="draft-research", report_saved=True))
    assert saved.refusal("list") is None and saved.apply("list", count=3) == ("draft-research", "select-view")


def test_listener_reports_every_transition():
    seen = []

    class Listener:
        def after_transition(self, event, source, target):
            seen.append((str(event), source.value, target.value))

    wf = new_workflow(WorkflowContext(), listeners=[Listener()])
    wf.apply("find", count=2)
    wf.apply("summarize")
    wf.apply("save")
    wf.apply("list", count=0)
    assert seen == [("find", "initial", "select-new"), ("summarize", "select-new", "draft-summary"),
                    ("save", "draft-summary", "summarized"), ("list", "summarized", "initial")]


def test_resumes_in_a_stored_state_and_ignores_an_unknown_one():
    assert machine("draft-summary").state == "draft-summary"
    assert machine("no-such-state").state == "initial"
    context = WorkflowContext()
    wf = new_workflow(context)
    wf.apply("find", count=1)
    assert context.state == "select-new"  # the machine writes the state onto its model, which the Desk persists


class Clock:
    def __init__(self):
        self.now = 1000.0

    def __call__(self):
        return self.now


def test_offline_guards_disable_network_commands_with_the_reason():
    context = WorkflowContext(forced_offline="started with --offline")
    wf = new_workflow(context)
    assert wf.refusal("find") == ("find is not available offline (started with --offline): search your library "
                                  "with sem-search <query>, or go online and try again")
    assert wf.refusal("sem-search") is None and wf.refusal("list") is None  # the library and local model still work
    context.state = None


def test_offline_summarize_needs_the_paper_downloaded():
    context = WorkflowContext(state="select-new", forced_offline="offline", downloaded=[False, True])
    wf = new_workflow(context)
    assert wf.refusal("summarize") is None  # at least one result is already in the library
    assert "not downloaded yet" in wf.refusal("summarize", downloaded=False)
    assert wf.refusal("summarize", downloaded=True) is None
    context.downloaded = [False]
    assert "not downloaded yet" in wf.refusal("summarize")


def test_remote_model_is_a_network_dependency():
    context = WorkflowContext(state="draft-sem-search", forced_offline="offline", remote_model=True)
    wf = new_workflow(context)
    for command in ("improve", "sem-search", "research"):
        assert "remote endpoint" in wf.refusal(command)
    assert wf.refusal("open") is None and wf.refusal("save") is None


def test_detected_offline_expires_so_find_can_retry():
    clock = Clock()
    context = WorkflowContext(retry_seconds=60, clock=clock)
    wf = new_workflow(context)
    context.mark_unreachable()
    assert "arXiv unreachable" in wf.refusal("find")
    assert context.mode.startswith("offline (arXiv unreachable")
    clock.now += 61
    assert wf.refusal("find") is None and context.mode == "online"
