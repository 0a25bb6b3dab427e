"""discuss's options, the draft-discussion rows of the workflow, and the text face of discussions and memory."""

import pytest

from paperdesk.core.commands.parse import CommandError, parse
from paperdesk.core.handlers.discussion import DiscussArgs, parse_discuss
from paperdesk.core.memory.types import Entity, Observation, Relation
from paperdesk.core.commands.views import DiscussionProgress, MemoryView
from paperdesk.core.commands.workflow import WorkflowContext, new_workflow
from paperdesk.text_discussion import discussion_text, render_memory


@pytest.mark.parametrize("text, expected", [
    ("", DiscussArgs()),
    ("3", DiscussArgs("3")),
    ("2302.07302 --turns 4 --every 2", DiscussArgs("2302.07302", 4, 2)),
    ("--every=1 --turns=2 1", DiscussArgs("1", 2, 1)),
    ("--resume", DiscussArgs(resume=True)),
])
def test_discuss_options(text, expected):
    assert parse_discuss(text) == expected
    assert parse(f"discuss {text}".strip()).name == "discuss"


@pytest.mark.parametrize("text, words", [
    ("--turns", "--turns takes a whole number from 1 to 50, got ''"),
    ("--every 0", "--every takes a whole number from 1 to 50, got '0'"),
    ("--turns 51", "got '51'"),
    ("1 2", "too many arguments"),
    ("--fast", "unknown option '--fast'"),
    ("banana", "neither a result number nor a paper id"),
    ('"unclosed', "No closing quotation"),
])
def test_bad_discuss_options_say_what_is_wrong(text, words):
    with pytest.raises(CommandError, match="discuss") as caught:
        parse_discuss(text)
    assert words in str(caught.value)


def test_draft_discussion_rows():
    machine = new_workflow(WorkflowContext(state="draft-discussion"))
    for command in ("improve", "save", "undo", "redo", "summary", "open", "discuss", "memory", "list", "find"):
        assert machine.allows(command), command
    assert not machine.allows("abandon") and not machine.allows("summarize")
    assert machine.apply("save") == ("draft-discussion", "draft-discussion")
    for state in ("initial", "select-new", "draft-summary"):
        refusal = new_workflow(WorkflowContext(state=state)).refusal("discuss")
        assert refusal is not None and "discuss is not available in " + state in refusal
    assert new_workflow(WorkflowContext(state="draft-summary")).refusal("memory") is None  # read-only, ANY


def test_discussion_steps_and_memory_as_text():
    start = DiscussionProgress("start", 3, 0, 4, data={"title": "CiteSee", "resumed_after": 2})
    assert discussion_text(start) == "Discussion 3 of CiteSee (resumed after turn 2)\n"
    question = DiscussionProgress("question", 3, 3, 4, "student", "What is CiteSee?")
    assert discussion_text(question) == "\n[turn 3/4] Student: What is CiteSee?\nTeacher: "
    assert discussion_text(DiscussionProgress("turn", 3, 3, 4)) == ""
    view = MemoryView("cite", [Entity("CiteSee", "method", [Observation(f"fact {n}", "2302.07302v1", n)
                                                            for n in range(1, 6)])],
                      [Relation("CiteSee", "2302.07302v1", "appears in")], 1)
    text = render_memory(view)
    assert "  1. CiteSee (method)" in text and "- fact 1  (2302.07302v1, p. 1)" in text
    assert "... 2 more observations" in text and "CiteSee --appears in--> 2302.07302v1" in text
    assert render_memory(MemoryView("", [], [], 0)) == "(no memory nodes)"
