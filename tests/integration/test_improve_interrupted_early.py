"""An improve stopped before its rewrite has a sentence stores nothing: the answer shown stays the good one,
instead of an empty "interrupted" revision (only its sources, none cited) on top of it.

FakeLLM (a stand-in, not a model) holds its first token until the cancel: the interruption always lands
before any text."""

from __future__ import annotations

from desk_helpers import run_in_background, wait_until
from fake_llm import FakeLLM


def test_an_improve_stopped_before_any_sentence_keeps_the_answer_current(citesee_desk):
    llm = FakeLLM()
    desk = citesee_desk(llm)
    assert desk.run("sem-search how do readers keep track of citations").ok
    draft_id = desk.session.draft.draft_id
    before = desk.drafts.current_draft(draft_id)
    assert before.text.strip()
    llm.requests, llm.hold_first_after = [], 0  # the next request is held before its first token
    worker, box = run_in_background(desk, "improve mention the lab study")
    assert wait_until(lambda: llm.requests)
    assert desk.cancel()
    worker.join(30)
    outcome = box[0]
    assert outcome.status == "cancelled" and "unchanged (revision 1)" in outcome.message, outcome.message
    after = desk.drafts.current_draft(draft_id)
    assert (after.revision, after.text) == (before.revision, before.text)
