"""The discussion's decisions made by code: the turn router, functions, question checks, observer insights."""

from __future__ import annotations

import pytest

from paperdesk.core.discussion import route
from paperdesk.core.discussion.function import FUNCTIONS, FunctionClassifier, by_rules
from paperdesk.core.discussion.observer import Observer, render_markdown
from outline_sample import citesee_outline
from paperdesk.core.discussion.outline import candidate_terms, clean_heading
from paperdesk.core.discussion.student import Student, Topic, seed_topics
from paperdesk.core.discussion.teacher import cited_share, sentences
from paperdesk.core.discussion.types import Turn


@pytest.mark.parametrize("turn,every,total,step", [
    (1, 3, 10, "continue"), (2, 3, 10, "continue"), (3, 3, 10, "observe"), (6, 3, 10, "observe"),
    (9, 3, 10, "observe"), (10, 3, 10, "summarize"), (9, 3, 9, "summarize"), (1, 1, 3, "observe"),
    (3, 1, 3, "summarize"), (4, 5, 4, "summarize"),
])
def test_router(turn, every, total, step):
    assert route(turn, every, total) == step


def test_router_observes_exactly_every_k_turns_before_the_end():
    steps = [route(n, 3, 10) for n in range(1, 11)]
    assert [n for n, s in enumerate(steps, 1) if s == "observe"] == [3, 6, 9]
    assert steps[-1] == "summarize" and steps.count("summarize") == 1


_outline = citesee_outline


def test_headings_lose_numbers_and_tags_and_terms_skip_stopwords():
    assert clean_heading("4.3 [D1] Discover Relevant Citations") == "Discover Relevant Citations"
    assert clean_heading("Abstract") == "Abstract"
    terms = candidate_terms("The inline citations of the paper")
    assert "inline citations" in terms and "paper" not in terms and "the" not in terms


def test_seeded_topics_interleave_sections_and_terms():
    kinds = [(t.kind, t.target) for t in seed_topics(_outline())]
    assert kinds[:4] == [("overview", "CiteSee: Augmenting Citations"), ("section", "1 Introduction"),
                         ("term", "inline citations"), ("method", "4 System Design")]
    assert ("critique", "7 Limitations and Future Work") in kinds


def test_student_accepts_only_real_questions_on_the_topic():
    student = Student(_outline(), backend=None)  # _clean never calls the model
    topic = Topic("term", "inline citations")
    assert student._clean(" What role do inline citations play for readers? And more", topic) == \
        "What role do inline citations play for readers?"
    assert student._clean("Inline citations are useful.", topic) is None  # not a question
    assert student._clean("What is the ablation zone of a glacier?", topic) is None  # copied from the examples
    assert student._clean("Why is the sky blue today?", topic) is None  # off the topic


def test_student_follow_up_insight_and_state_round_trip():
    student = Student(_outline(), backend=None)
    first = student.next_topic()
    student.heard(first, "The paper shows that reading history helps [p. 3].")
    assert student.queue[0] == Topic("follow-up", "reading history", "", "follow-up")
    student.take_insight({"kind": "uncovered_section", "target": "4 System Design"})
    assert student.queue[0].target == "4 System Design" and student.queue[0].origin == "insight"
    again = Student(_outline(), backend=None, state=student.state())
    assert again.queue == student.queue and again.asked == student.asked


def test_rules_decide_functions_and_exemplars_cover_the_rest(embedder):
    assert by_rules("What are the weaknesses of the study?", "section", False) == "critique"
    assert by_rules("Can you say more about it?", "section", False) == "elaboration"
    assert by_rules("What does reading history mean?", "section", False) == "clarification"
    assert by_rules("How does the system rank citations?", "section", False) == "problem-solving"
    assert by_rules("Which results stand out?", "section", True) == "new topic introduction"
    assert by_rules("Which results stand out?", "section", False) is None
    label = FunctionClassifier(embedder.encode).classify("Which results stand out?", "section", False)
    assert label in FUNCTIONS


def _turn(n: int, question: str, answer: str, sections: list[str], pages: list[int], share: float) -> Turn:
    return Turn(n, {"kind": "section", "target": sections[0], "section": sections[0], "origin": "plan"}, question,
                answer, [], sections, pages, [], share, True)


def test_observer_finds_repetition_uncovered_sections_and_unsupported_answers(embedder):
    observer = Observer(_outline(), embedder.encode)
    turns = [
        _turn(1, "What is the introduction about?", "It introduces CiteSee [p. 1].", ["1 Introduction"], [1], 1.0),
        _turn(2, "What does the introduction say?", "It is about reading.", ["1 Introduction"], [], 0.0),
        _turn(3, "What is the introduction about?", "Readers see citations.", ["1 Introduction"], [], 0.0),
    ]
    insight = observer.insights(turns, every=3)
    assert insight["student"]["kind"] == "repetition" and "turn 1" in insight["student"]["text"]
    assert insight["student"]["target"] == "4 System Design"  # the first section no turn covered
    assert insight["teacher"]["kind"] == "unsupported"
    fine = [_turn(1, "How is the system designed?", "A [p. 5].", ["4 System Design"], [5], 1.0),
            _turn(2, "What limits the study?", "B [p. 13].", ["7 Limitations and Future Work"], [13], 1.0)]
    assert observer.insights(fine, every=2)["student"]["kind"] == "uncovered_section"
    assert observer.insights(fine, every=2)["teacher"]["kind"] == "ok"


def test_summary_annotations_are_computed(embedder):
    observer = Observer(_outline(), embedder.encode)
    turns = [_turn(1, "What are inline citations?", "The passages show that inline citations matter. "
                   "Inline citations are a key resource for discovering papers [p. 1].", ["1 Introduction"], [1], 0.5)]
    entry = observer.summary(turns)[0]
    assert entry["answer"] == "Inline citations are a key resource for discovering papers [p. 1]."
    assert entry["paper_context"] == {"sections": ["1 Introduction"], "pages": [1]}
    assert entry["function"] == "clarification" and entry["terms"] == ["inline citations"]
    markdown = render_markdown("CiteSee", "p1", [entry])
    assert "## Turn 1: clarification" in markdown and "- Paper context: 1 Introduction, p. 1" in markdown


def test_sentences_keep_page_citations_whole():
    text = "Readers track citations [p. 4]. They save papers [p. 5] and [pp. 6-7]. Uncited."
    assert sentences(text) == ["Readers track citations [p. 4].", "They save papers [p. 5] and [pp. 6-7].", "Uncited."]
    assert cited_share(text) == pytest.approx(2 / 3)
