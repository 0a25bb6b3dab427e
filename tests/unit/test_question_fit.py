"""A student question asks about its passage's own claims, or the template question is asked instead.

`WriterStandIn` is FakeLLM (NOT a model): it writes one fixed question, so these tests are about what code
accepts, asks and remembers. `BagOfWords` stands in for the sentence encoder of the memory graph (a
word-count vector, NOT an embedding model): the tests are about what is written to it, not how it is found.
"""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from fake_llm import FakeLLM
from outline_sample import citesee_outline
from paperdesk.core.db.store import Chunk
from paperdesk.core.discussion.outline import Outline, Section
from paperdesk.core.discussion.phrasing import Target, target_for, worked_example
from paperdesk.core.discussion.question_fit import problems
from paperdesk.core.discussion.remember import remember_turn
from paperdesk.core.discussion.student import Student, Topic
from paperdesk.core.discussion.types import Turn
from paperdesk.core.memory import MemoryGraph
from toy_encoders import BagOfWords

PASSAGE = Target("In the field study, 73% of participants preferred the highlighted citations over the plain ones, "
                 "and readers opened more of the papers they had already saved. The reading history increases the "
                 "chance that a familiar paper is noticed while reading.", 7, "reading history")
HEADINGS = [("1 Introduction", "Introduction"), ("4 System Design", "System Design")]
FITS = "How does the reading history help readers notice a familiar paper?"


def WriterStandIn(text: str) -> FakeLLM:  # noqa: N802 - named for what it is in this test
    return FakeLLM(text)


@pytest.mark.parametrize("question,why", [
    ("Why did only 27% of participants prefer the highlighted citations?", "states a number"),
    ("Why did readers open fewer of the papers they had already saved?", "reverses the direction"),
    ("How does the reading history decrease the chance that a familiar paper is noticed?", "reverses the direction"),
    ("Why did participants prefer the plain citations over the highlighted ones?", "reverses the order"),
    ("Why did 73% of participants not prefer the highlighted citations?", "negates the finding"),
    ("What is the purpose of the 1 Introduction section in CiteSee?", "reads the section heading"),
    ("What does the System Design section say about the reading history?", "reads the section heading"),
    ("What is the purpose of the highlighted citations in the field study?", "asks for a purpose"),
    ("How does S2ORC store the reading history of a reader?", "names a term the paper does not use"),
])
def test_a_question_that_does_not_fit_its_passage_says_why(question, why):
    assert problems(question, PASSAGE.passage, HEADINGS, {"citesee", "reading", "history"}).startswith(why)


@pytest.mark.parametrize("question", [
    FITS,
    "Why did 73% of participants prefer the highlighted citations over the plain ones?",
    "Why do readers open more of the papers they had already saved?",
    "Which papers does CiteSee highlight for readers?",
])
def test_a_question_about_the_passages_own_claims_fits(question):
    assert problems(question, PASSAGE.passage, HEADINGS, {"citesee", "reading", "history"}) == ""


def test_a_question_taking_a_word_of_the_prompts_worked_example_does_not_fit():
    question = "Why did the highlighted citations help readers only in the dry plots?"
    assert problems(question, PASSAGE.passage, HEADINGS, {"citesee"}, worked_example()).startswith(
        "takes a term from another text (plots)")
    assert problems(FITS, PASSAGE.passage, HEADINGS, {"citesee"}, worked_example()) == ""


def _student(text: str) -> Student:
    return Student(citesee_outline(), WriterStandIn(text), targets=lambda topic: PASSAGE)


def test_a_reversed_question_is_dropped_and_the_template_question_asked():
    student = _student("Why did readers open fewer of the papers they had already saved?")
    question, phrased = student.ask(Topic("section", "1 Introduction", "1 Introduction"))
    assert not phrased and question == 'What does the section "Introduction" explain?'
    assert "reverses the direction" in student.why and "fewer" in student.why
    number = _student("Why did only 27% of participants prefer the highlighted citations?")
    assert number.ask(Topic("term", "reading history"))[1] is False and "states a number" in number.why


def test_a_heading_topic_never_puts_the_heading_in_the_question():
    student = _student("What is the purpose of the 1 Introduction section in CiteSee?")
    question, phrased = student.ask(Topic("section", "1 Introduction", "1 Introduction"))
    assert not phrased and "1 Introduction" not in question
    assert student._clean("What is the purpose of the 1 Introduction section?", Topic("section", "1 Introduction",
                                                                                       "1 Introduction")) is None


class StoreStandIn:
    """The two store reads target_for makes, over one section's passage (a stand-in, not the SQLite store)."""

    def __init__(self, text: str) -> None:
        self.chunk = Chunk(11, "p1", 0, 2, 2, "1 Introduction", text)

    def chunks_by_ids(self, ids):
        return {self.chunk.id: self.chunk} if self.chunk.id in ids else {}

    def chunks_of(self, paper_id):
        return [self.chunk]


def test_a_section_topic_asks_about_its_passages_claims_not_its_heading():
    outline = Outline("p1", "CiteSee: Augmenting Citations", [
        Section("1 Introduction", "Introduction", (2, 2), [11], "section")], [])
    store = StoreStandIn("Scholars follow citation trails to discover related work. Citation trails often lead "
                         "readers to papers they have already read.")
    target = target_for(store, outline, Topic("section", "1 Introduction", "1 Introduction"))
    assert target.focus == "citation trails", target.focus
    student = Student(outline, WriterStandIn("What is the purpose of the 1 Introduction section in CiteSee?"),
                      targets=lambda topic: target_for(store, outline, topic))
    question, _ = student.ask(Topic("section", "1 Introduction", "1 Introduction"))
    assert "1 Introduction" not in question
    assert all("Introduction" not in r.prompt.split("Ask about:")[-1] for r in student.backend.requests)


@pytest.fixture
def memory(tmp_path):
    graph = MemoryGraph(tmp_path / "memory.sqlite", SimpleNamespace(encode=BagOfWords(384)))
    yield graph
    graph.close()


def _turn(question: str, phrased: bool, supported: list[str], not_found: bool = False) -> Turn:
    answer = supported[0] if supported else 'Not found in the paper; its closest passage says: "x." [p. 7].'
    return Turn(1, {"kind": "term", "target": "reading history", "section": ""}, question, answer, [], [], [7], [],
                1.0, phrased, supported=supported, not_found=not_found)


def test_a_dropped_question_is_not_remembered_and_the_asked_one_is(memory):
    outline = citesee_outline()
    reversed_question = "Why did readers open fewer of the papers they had already saved?"
    student = _student(reversed_question)
    asked, phrased = student.ask(Topic("term", "reading history"))
    said = "The reading history increases the chance that a familiar paper is noticed [p. 7]."
    remember_turn(memory, outline, 1, _turn(asked, phrased, [said]), None, student.passage, student.headings)
    names = {e.name for e in memory.export().entities}
    assert asked in names and reversed_question not in names
    # a model-phrased question that does not fit its passage writes nothing, however it got there
    written = remember_turn(memory, outline, 2, _turn(reversed_question, True, [said]), None, PASSAGE.passage,
                            student.headings)
    assert written is False and reversed_question not in {e.name for e in memory.export().entities}


def test_a_not_found_answer_is_not_remembered_as_a_fact(memory):
    outline = citesee_outline()
    remember_turn(memory, outline, 3, _turn(FITS, True, [], not_found=True), None, PASSAGE.passage, HEADINGS)
    (question,) = memory.open_nodes([FITS]).entities
    assert all(not o.text.startswith("Answered") and o.page is None for o in question.observations)


def test_two_questions_with_mostly_the_same_content_words_are_one():
    from paperdesk.core.discussion.student import same_words

    assert same_words("What is the duration of a bloom in the Arctic?", "What is the duration of the melt season in the Arctic?")
    assert not same_words("How is the bloom detected from satellites?", "What is the duration of the melt season?")
