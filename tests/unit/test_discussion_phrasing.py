"""The student's question checks (phrasing.py) and the student's use of the writer model's question.

FakeLLM stands in for the model (NOT a model): these tests are about what code accepts and records."""

from __future__ import annotations

import pytest

from fake_llm import FakeLLM
from outline_sample import citesee_outline
from paperdesk.core.discussion.phrasing import Target, check, overlap, repeats, worked_example
from paperdesk.core.discussion.student import Student, Topic

PASSAGE = Target("CiteSee augments inline citations with the reader's history: citations the reader has already "
                 "read, saved or cited are highlighted, so a familiar paper stands out while reading.", 3)
TITLE = "CiteSee: Augmenting Citations in Scientific Papers"
EXAMPLES = worked_example()


def checked(text: str, asked: tuple[str, ...] = (), answer: str = "") -> tuple[str | None, str]:
    return check(text, PASSAGE, TITLE, answer, list(asked), EXAMPLES)


def test_a_curious_readers_question_about_the_passage_is_kept():
    assert checked("Question: How does CiteSee decide which inline citations to highlight? It also")[0] == \
        "How does CiteSee decide which inline citations to highlight?"


@pytest.mark.parametrize("text,why", [
    ("CiteSee highlights citations.", "not a question"),
    ("Why?", "too short"),
    ("How does CiteSee decide, for every single inline citation in every paper a reader opens across "
     "all the many sessions of a long week of reading, which of them to highlight?", "too long"),
    ("What do the passages say about saved citations?", "echoes the prompt"),
    ("Why did the nitrogen-fixing bacteria help only in the dry plots?", "copies the prompt's example"),
    ("Why is the sky blue on a summer afternoon?", "not about the paper's words"),
    ("Are citations the reader has already read, saved or cited highlighted?", "reads the passage back"),
    ("what does citesee highlight?", "not a clean question"),
])
def test_what_is_not_a_usable_question_falls_back_with_its_reason(text, why):
    question, reason = checked(text)
    assert question is None and reason.startswith(why), reason


def test_a_question_that_repeats_an_earlier_one_by_word_overlap_is_refused():
    earlier = "Which inline citations does CiteSee highlight for the reader?"
    assert overlap("Which inline citations does CiteSee highlight?", earlier) >= 0.6
    question, reason = checked("Which inline citations does CiteSee highlight?", asked=(earlier,))
    assert question is None and reason.startswith("repeats an earlier question")
    assert repeats("How is the reading history stored?", [earlier]) is None


def _student(text: str) -> Student:
    return Student(citesee_outline(), FakeLLM(text), targets=lambda topic: PASSAGE)


def test_the_model_phrases_every_topic_from_its_passage_and_the_last_answer_even_the_opening_one():
    student = _student("How does CiteSee choose which citations to highlight?")
    question, phrased = student.ask(Topic("overview", TITLE))
    assert phrased and student.why == "" and question == "How does CiteSee choose which citations to highlight?"
    prompt = student.backend.requests[-1].prompt
    assert PASSAGE.passage in prompt and "(p. 3)" in prompt
    student.heard(Topic("overview", TITLE), "Familiar papers are highlighted [p. 3].")
    student.ask(Topic("section", "1 Introduction", "1 Introduction"))
    assert "Last answer: Familiar papers are highlighted." in student.backend.requests[-1].prompt
    assert student.state()["last_answer"] == "Familiar papers are highlighted."


def test_a_repeated_model_question_becomes_the_template_question_and_says_why():
    student = _student("How does CiteSee choose which citations to highlight?")
    student.ask(Topic("overview", TITLE))
    question, phrased = student.ask(Topic("section", "1 Introduction", "1 Introduction"))
    assert not phrased and question == 'What does the section "Introduction" explain?'
    assert student.why.startswith("repeats an earlier question") and "How does CiteSee choose" in student.why


def test_a_chat_writer_gets_the_worked_example_as_its_own_exchange_and_this_papers_passage_last():
    student = _student("How does CiteSee choose which citations to highlight?")
    student.backend.chat_template = "{{ messages }}"  # a chat model: its prompt is chat turns
    student.ask(Topic("overview", TITLE))
    turns = student.backend.requests[-1].messages
    assert [m["role"] for m in turns] == ["system", "user", "assistant", "user"]
    assert turns[2]["content"] == "Why did the nitrogen-fixing bacteria help only in the dry plots?"
    assert PASSAGE.passage in turns[3]["content"] and "Soil" not in turns[3]["content"]


def test_one_shared_word_is_not_a_repeat_of_a_one_word_template_question():
    assert repeats("What is the purpose of writing in a related work section?",
                   ['Can you say more about "writing"?']) is None
    assert repeats("Can you say more about writing?", ['Can you say more about "writing"?']) is not None


def test_a_refused_question_gets_two_more_tries_that_must_name_the_passages_term():
    student = _student("What is the main focus of this paper?")
    question, phrased = student.ask(Topic("overview", TITLE))
    assert not phrased and len(student.backend.requests) == 3
    first, second, third = (r.prompt for r in student.backend.requests)
    assert "(The question names" not in first and "(The question names" in second and second == third
    assert [r.temperature for r in student.backend.requests] == sorted({r.temperature for r in student.backend.requests})
    assert student.why.count("not about the paper's words") == 3


def test_a_term_an_earlier_question_named_is_not_asked_about_again():
    student = _student("How does CiteSee choose which citations to highlight?")
    student.queue = [Topic("term", "inline citations"), Topic("section", "2 Method", "2 Method")]
    student.questions = ["what is the purpose of inline citations in scholarly articles?"]
    assert student.next_topic().target == "2 Method"  # "Can you say more about inline citations?" would repeat it
    student.queue = []
    student.heard(Topic("section", "2 Method", "2 Method"), "CiteSee uses inline citations and the reading history.")
    assert [(t.kind, t.target) for t in student.queue] == [("follow-up", "reading history")]  # not the named term


def test_a_longer_question_using_a_short_template_questions_words_asks_something_else():
    template_question = 'Can you say more about "expository writing"?'
    assert repeats("Why is the authors' reading of the source still important in expository writing?",
                   [template_question]) is None


def test_the_passage_a_question_speaks_of_is_the_paper_to_the_reader():
    assert checked("What does the passage mean by \"inline citations\"?")[0] == \
        'What does the paper mean by "inline citations"?'
    assert repeats("What is the main idea of expository writing?",
                   ["Why is expository writing different from the previous work?"]) is None
