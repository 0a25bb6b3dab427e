"""The dialogue: initiatives vs solicited replies, clearing at act, JSON, the prompt block; and a reply
to the dispatcher's own question decided together with the message that led to it."""

from __future__ import annotations

import json

from paperdesk.core.dispatch import Dialogue, DispatchContext, Dispatcher, PaperRef
from paperdesk.core.dispatch.catalog import from_registry


class NoEncoder:
    def encode(self, texts):
        raise AssertionError(f"the embedding layer was reached for {texts!r}")


def test_a_reply_to_the_desk_question_is_linked_to_it():
    dialogue = Dialogue()
    first = dialogue.receive("summarize that one")
    assert first.kind == "message" and dialogue.pending_question is None
    question = dialogue.ask("Which paper should I summarize: a number 1-5, a title or an id?")
    assert dialogue.pending_question is question
    reply = dialogue.receive("the third")
    assert reply.kind == "reply"
    assert dialogue.question_for(reply) is question
    assert question.answered and dialogue.pending_question is None
    # The next line is a new initiative again, not a second reply.
    assert dialogue.receive("now find papers on tables").kind == "message"
    assert dialogue.user_messages() == 3


def test_a_decision_after_the_question_means_no_reply_is_pending():
    dialogue = Dialogue()
    dialogue.receive("that one")
    dialogue.ask("What do you mean?")
    dialogue.receive("open 2")
    dialogue.note("-> open 2 (navigate, 1.00)")
    assert dialogue.pending_question is None


def test_cleared_at_act_only():
    dialogue = Dialogue()
    dialogue.receive("make it shorter")
    assert not dialogue.after_command("improve")
    assert len(dialogue) == 1
    assert dialogue.after_command("save")
    assert len(dialogue) == 0
    for act in ("abandon", "clear"):
        dialogue.receive("x")
        assert dialogue.after_command(act) and len(dialogue) == 0


def test_json_round_trip_and_malformed_turns_dropped():
    dialogue = Dialogue()
    dialogue.receive("summarize that one")
    dialogue.ask("Which paper?")
    dialogue.receive("the CiteSee one")
    data = json.loads(json.dumps(dialogue.to_json()))
    again = Dialogue.from_json(data)
    assert again.to_json() == dialogue.to_json()
    assert again.question_for(again.turns[2]).text == "Which paper?"
    assert len(Dialogue.from_json([{"role": "user"}, *data])) == 3
    assert len(Dialogue.from_json("garbage")) == 0


def test_prompt_block():
    dialogue = Dialogue()
    assert dialogue.as_prompt_block() == ""
    dialogue.receive("write about the evaluation")
    dialogue.ask("Which paper's evaluation?")
    dialogue.receive("CiteSee")
    block = dialogue.as_prompt_block()
    assert block.startswith("User dialogue")
    lines = block.strip().splitlines()
    assert lines[1] == "- User: write about the evaluation"
    assert lines[2] == "- Desk asked: Which paper's evaluation?"
    assert lines[3] == "- User (answering the question above): CiteSee"


def test_solicited_reply_completes_the_original_message():
    results = [PaperRef(f"2301.0000{i}v1", f"Paper {i}") for i in range(1, 6)]
    dialogue = Dialogue()
    dialogue.receive("summarize that one")
    dialogue.ask("Which paper should I summarize: a number 1-5, a title or an id?")
    ctx = DispatchContext(state="select-new", results=results, results_kind="find", dialogue=dialogue)
    d = Dispatcher(NoEncoder(), from_registry()).decide("the third", ctx)
    assert (d.action, d.command) == ("delegate", "summarize 3")
    assert "reply to" in d.reason and "summarize that one" in d.reason


def test_solicited_reply_that_stands_alone_is_taken_alone():
    dialogue = Dialogue()
    dialogue.receive("do it again")
    dialogue.ask("Do what again?")
    ctx = DispatchContext(dialogue=dialogue)
    d = Dispatcher(NoEncoder(), from_registry()).decide("look for papers on graph neural networks", ctx)
    assert (d.action, d.command) == ("delegate", "find graph neural networks")


def test_decision_line_shown_before_running():
    d = Dispatcher(NoEncoder()).decide("look for new papers on table extraction", DispatchContext())
    assert d.line() == "-> find table extraction (delegate, 0.92)"


def test_the_session_keeps_the_dispatchers_dialogue_turns():
    """The Desk's session stores the dispatcher's own Dialogue JSON, so `route` and `dialogue` read one format."""
    from paperdesk.core.dispatch.dialogue import Dialogue
    from paperdesk.core.commands.session import Session

    turns = [{"role": "user", "kind": "message", "text": "summarize that one"},
             {"role": "desk", "kind": "question", "text": "Which paper: 1-3?"}]
    state, session = Session.from_json({"state": "select-new", "dialogue": turns + ["junk"]})
    assert state == "select-new"
    assert [t.text for t in Dialogue.from_json(session.dialogue).turns] == ["summarize that one", "Which paper: 1-3?"]
    assert Session.from_json(session.to_json("select-new"))[1].dialogue == turns
