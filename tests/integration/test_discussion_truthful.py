"""The teacher shows and stores only sentences their cited passage supports; memory keeps only those.

Real library (SQLite, tantivy, MiniLM) holding "Beyond Summarization" (2304.02623). The text the
teacher's model writes comes from FakeLLM: it is NOT a model, it writes a fixed text, so the test is
about what the support check keeps, streams, stores and remembers (the real GGUF runs the same teacher
in test_discussion_model.py).
"""

from __future__ import annotations

import re

import pytest

from conftest import PAPERS
from fake_llm import FakeLLM
from paperdesk.core.agents.attribution import split_sentences
from paperdesk.core.discussion import Discussion
from paperdesk.core.discussion.outline import build_outline
from paperdesk.core.discussion.student import Topic
from paperdesk.core.discussion.teacher import Teacher
from paperdesk.core.memory import MemoryGraph

pytestmark = pytest.mark.slow  # the real embedder

FALSE = ("GROBID is optimized for processing non-paper academic documents [1]. "
         "The paper addresses climate change in wheat production [1].")
QUESTION = "What do the authors want AI support for writing to do?"


@pytest.fixture
def paper(library):
    return library.add_pdf(PAPERS / "2304.02623v1.pdf").paper


def _flat(text: str) -> str:
    return " ".join(re.sub(r"(\w)-\s+(\w)", r"\1\2", text).split())


def test_unsupported_sentences_are_neither_shown_nor_kept_and_the_closest_passage_is_quoted(library, paper):
    from paperdesk.core.discussion.truthful import NOT_FOUND

    outline = build_outline(library.store, paper.id, paper.title)
    teacher = Teacher(library, FakeLLM(FALSE), outline)
    streamed: list[str] = []
    answer = teacher.answer(QUESTION, Topic("overview", outline.title), on_token=streamed.append)
    assert "GROBID" not in answer.text and "climate" not in answer.text
    assert "GROBID" not in "".join(streamed) and "climate" not in "".join(streamed)
    assert answer.not_found and answer.supported == [] and len(answer.dropped) == 2
    assert answer.text.startswith(NOT_FOUND)
    quote, page = re.match(r'.*"(.+?)(?: \.\.\.)?" \[p\. (\d+)\]\.$', answer.text).groups()
    assert _flat(quote) in _flat(library.store.page_text(paper.id, int(page)))
    (citation,) = answer.citations
    assert citation["paper_id"] == paper.id and citation["label"] == f"[p. {page}]"


def test_a_sentence_its_passage_states_is_kept_cited_as_that_passage(library, paper):
    outline = build_outline(library.store, paper.id, paper.title)
    teacher = Teacher(library, FakeLLM(""), outline)
    sources = teacher.gather(QUESTION, Topic("overview", outline.title))
    own = next(s for s in sources if s.kind == "paper")
    said = next(s for s in split_sentences(" ".join(own.text.split())) if 10 <= len(s.split()) <= 35
                and "[" not in s and not re.search(r"\d", s))
    teacher.backend = FakeLLM(f"{said} [1]. The paper addresses climate change in wheat production [1].")
    answer = teacher.answer(QUESTION, Topic("overview", outline.title))
    assert not answer.not_found and "climate" not in answer.text
    assert len(answer.supported) == 1 and answer.text == answer.supported[0]
    assert re.search(r"\[pp?\. \d+(?:-\d+)?\]", answer.text)
    assert all(c["paper_id"] == paper.id for c in answer.citations)


def test_only_a_supported_teacher_sentence_becomes_a_memory_fact(library, paper):
    memory = MemoryGraph.for_library(library)
    discussion = Discussion(library, FakeLLM(FALSE), memory, question_tokens=20, answer_tokens=40)
    result = discussion.run(paper.id, turns=2, every=3)
    assert result.status == "finished"
    facts = [o.text for e in memory.export().entities for o in e.observations]
    assert facts and not any("GROBID" in f or "climate" in f for f in facts), facts
    assert all(t.not_found and t.supported == [] for t in result.turns)
    # an answer no passage supported stores that the question was asked, never an answer to it
    answered = [f for f in facts if f.startswith("Answered in discussion")]
    assert answered == []
    memory.close()
    discussion.close()


@pytest.mark.parametrize("question", ["What problem does the paper address?",
                                      "Which prior work on writing assistants does the paper build on?"])
def test_the_reference_list_is_never_a_teacher_source(library, paper, question):
    from paperdesk.core.agents.evidence import is_boilerplate

    outline = build_outline(library.store, paper.id, paper.title)
    sources = Teacher(library, FakeLLM(""), outline).gather(question, Topic("overview", outline.title))
    assert sources and not any(is_boilerplate(s.section, s.text) for s in sources), \
        [(s.section, s.text[:80]) for s in sources]
