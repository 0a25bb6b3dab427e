"""Free text at the Desk: decisions shown then run through the guards, clarify and solicited
replies, refusals explained, the dialogue in every agent's prompt and cleared at act, interruption races.

Real library, embeddings (MiniLM routes the messages) and loopback arXiv. Generation comes from FakeLLM:
these tests are about orchestration only (which prompt carries the dialogue, what is cancelled and kept);
the real model runs the same free-text session in test_shell_dispatch_e2e.py.
"""

import threading

import pytest

from desk_helpers import start_summary
from fake_llm import FakeLLM
from paperdesk.core.dispatch.talk import Understood
from paperdesk.core.research import Backends, Researcher

pytestmark = pytest.mark.slow


def _understood(desk):
    seen = []
    desk.subscribe(lambda e: seen.append(e) if isinstance(e, Understood) else None)
    return seen


def test_a_cycle_started_from_free_text_carries_the_dialogue_into_every_prompt_until_save(make_desk):
    fake = FakeLLM()  # pure orchestration: which prompts carry the "User dialogue" block
    desk = make_desk(fake)
    seen = _understood(desk)
    assert desk.run("look for new papers on expository writing").ok
    assert seen[-1].decision.command == "find expository writing" and desk.state == "select-new"
    assert desk.run("summarize the first one").ok and desk.state == "draft-summary"
    assert seen[-1].line.startswith("-> summarize 1 (delegate,")
    before = len(fake.requests)
    assert desk.run("make it shorter").ok
    improve_prompts = [r.prompt for r in fake.requests[before:]]
    assert improve_prompts and all("User dialogue" in p and "- User: make it shorter" in p for p in improve_prompts)
    assert "User: look for new papers on expository writing" in improve_prompts[0]
    assert desk.run("add a note that figure 3 is reusable").ok
    assert "figure 3 is reusable" in desk.drafts.notes(desk.session.selected)
    status = desk.run("status").view.lines()
    assert status[-1] == "dialogue: 4 messages"
    assert desk.run("save it").ok and desk.state == "summarized"
    assert len(desk.talk.dialogue) == 0 and desk.session.dialogue == []
    assert desk.run("status").view.lines()[-1] == "dialogue: 0 messages"
    # a new cycle: the question's answer prompt carries only the new dialogue
    before = len(fake.requests)
    outcome = desk.run("what does expository writing support help with?")
    assert seen[-1].decision.action == "answer" and outcome.ok, outcome.message
    answer_prompt = fake.requests[before].prompt
    assert "User: what does expository writing support help with?" in answer_prompt
    assert "make it shorter" not in answer_prompt
    # the history records each message with what it was understood as
    rows = [(cmd, summary) for cmd, _, summary, _ in desk.store.history(50)]
    assert ("summarize the first one", seen[1].line) in rows


def test_the_research_agents_get_the_dialogue(make_desk):
    desk = make_desk()
    desk.run("find expository writing")
    desk.run("summarize 1")
    desk.run("save")
    planner, writer = FakeLLM('{"steps": []}'), FakeLLM()  # pure orchestration: prompts, not quality
    researcher = Researcher(desk.library, Backends(writer, planner, "fake"))
    desk.talk.dialogue.receive("compare how the papers evaluate writing support")
    desk.talk.dialogue.note("-> research ... (answer: complex, 0.80)")
    block = desk.dialogue_block()
    result = researcher.research("how do the papers evaluate writing support?", dialogue=block)
    assert result.report
    assert planner.requests and "compare how the papers evaluate writing support" in planner.requests[0].prompt
    # step answers (do), the check's re-asked answers and the fallback writer: every writer prompt has the block
    assert writer.requests and all("User dialogue" in r.prompt for r in writer.requests)


def test_a_vague_message_gets_a_question_and_the_reply_continues_it(make_desk):
    desk = make_desk()
    desk.run("find expository writing")
    seen = _understood(desk)
    outcome = desk.run("summarize that one")
    assert outcome.ok and seen[-1].decision.action == "clarify" and desk.state == "select-new"
    assert "Which" in outcome.message
    outcome = desk.run("the second")
    assert seen[-1].decision.command == "summarize 2" and "reply to" in seen[-1].decision.reason
    assert outcome.ok and desk.state == "draft-summary"
    kinds = [(t.role, t.kind) for t in desk.talk.dialogue.turns]
    assert kinds == [("user", "message"), ("desk", "question"), ("user", "reply"), ("desk", "decision")]
    assert desk.talk.dialogue.turns[2].answers == 1
    shown = desk.run("dialogue").view.turns
    assert ("user", "the second") in shown


def test_a_refused_delegation_says_what_was_understood_why_not_and_what_would_enable_it(make_desk):
    desk = make_desk()
    outcome = desk.run("ask summarize 1")
    assert outcome.status == "refused"
    assert "understood as `summarize 1`" in outcome.message
    assert "not available in initial" in outcome.message and "find papers first" in outcome.message
    assert "nothing ran" in outcome.message and desk.state == "initial"
    assert desk.talk.dialogue.turns[-1].kind == "refusal"


def test_a_message_during_a_summary_interrupts_it_and_improves_the_kept_partial_summary(make_desk):
    # the held races (message-first and generation-first) are in test_desk_dispatch_race.py
    fake = FakeLLM(" ".join(["word"] * 400), hold_first_after=1)  # the summary runs until the message stops it
    desk = make_desk(fake)
    seen = _understood(desk)
    worker, box = start_summary(desk, fake, timeout=30)
    second = desk.talk.submit("focus on the evaluation")
    worker.join()
    assert box[0].status == "cancelled" and desk.state == "draft-summary"
    revisions = desk.store.revisions(desk.session.selected)
    assert revisions[0].status == "interrupted" and seen[0].interrupting
    # the message ran exactly once, as the improve of that summary, with its words in the prompt
    assert second.command == "improve focus on the evaluation" and second.status == "ok"
    assert len(revisions) == 2
    assert "User: focus on the evaluation" in fake.requests[-1].prompt
    assert [t.text for t in desk.talk.dialogue.turns if t.role == "user"] == ["focus on the evaluation"]


def test_a_read_only_message_answers_beside_the_running_work_without_interrupting(make_desk):
    fake = FakeLLM(" ".join(["word"] * 300))
    fake.held_until = threading.Event()  # the summary's generations wait after a token until the answer is in
    desk = make_desk(fake)
    worker, box = start_summary(desk, fake, timeout=30)
    outcome = desk.talk.submit("ask status")
    assert outcome.ok and outcome.view is not None and outcome.view.state == "draft-summary"
    assert desk.busy  # the summary still runs
    fake.held_until.set()
    worker.join()
    assert box[0].ok
