"""The student reads earlier discussions back: known topics go last, by topic or by meaning.

Real MiniLM for the similarity; no model (the queue is decided by code, `_repeats` by vectors).
"""

from __future__ import annotations

from outline_sample import citesee_outline
from paperdesk.core.discussion.student import Student, Topic


_outline = citesee_outline


def test_earlier_topics_and_questions_close_in_meaning_go_to_the_back(embedder):
    student = Student(_outline(), backend=None, encode=embedder.encode)
    before = [t.target for t in student.queue]
    known = student.skip_known(
        # an earlier model phrasing of the overview question: not the template's words, close in meaning
        ["What problem does this paper address and what does it propose?",
         "Which problem is tackled by the bees in the hive?"],  # about nothing here: moves nothing
        targets=["1 Introduction"],  # an earlier turn's topic, however its question was phrased
        related=['What does "reading history" mean in this paper?'])  # a term asked about a related paper
    assert {t.target for t in known} == {"CiteSee: Augmenting Citations", "1 Introduction", "reading history"}
    order = [t.target for t in student.queue]
    assert sorted(order) == sorted(before)  # nothing dropped: known topics are asked last, not never
    assert order[-3:] == [t for t in before if t in {t.target for t in known}]
    assert student.next_topic() == Topic("term", "inline citations")
    # the state keeps what is known, so a resumed discussion does not follow up on it either
    again = Student(_outline(), backend=None, state=student.state(), encode=embedder.encode)
    assert again.known == student.known and "reading history" in again.known
    again.heard(Topic("section", "4 System Design", "4 System Design"), "The reading history is kept [p. 5].")
    assert all(t.origin != "follow-up" for t in again.queue)


def test_a_related_papers_question_moves_only_terms(embedder):
    student = Student(_outline(), backend=None, encode=embedder.encode)
    # the overview question is the same words for every paper: asked about another paper, it says nothing here
    assert student.skip_known([], related=["What problem does the paper address, and what does it propose?"]) == []
    assert student.queue[0].kind == "overview"


def test_a_model_phrasing_that_repeats_an_earlier_question_is_caught_by_meaning(embedder):
    student = Student(_outline(), backend=None, encode=embedder.encode)
    student.skip_known(["How do inline citations help readers discover relevant papers?"])
    assert student._repeats("How do inline citations help readers to discover relevant papers?")
    assert not student._repeats("What are the limitations of the system design?")
    plain = Student(_outline(), backend=None)  # no encoder: the same content words still count
    plain.skip_known(["How do inline citations help readers discover relevant papers?"])
    assert plain._repeats("How do inline citations help readers to discover relevant papers?")
    assert not plain._repeats("What are the limitations of the system design?")
