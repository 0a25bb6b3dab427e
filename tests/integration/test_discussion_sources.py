"""The teacher's sources beyond the discussed paper: another library paper and the memory graph.

Real library (SQLite, tantivy, MiniLM) holding two related fixture papers: "Beyond Summarization"
(2304.02623, the one discussed) and Multi-LexSum (2206.10883, whose civil-rights lawsuit summaries the
first paper's study uses), and a memory graph holding a fact taken from Multi-LexSum's page 3.

Source selection (`Teacher.gather`: `_other_paper`, `_memory`) runs without a model. For the labelling
that follows generation (numbered sources -> `[ID, p. N]`, the answer's literature, the summary's
annotations) `EchoingStandIn` writes the text: it is FakeLLM, NOT a model, fed one sentence of each
outside source, so the test is about the orchestration after generation, which is deterministic only
this way. The real GGUF runs the same teacher in test_discussion_model.py.
"""

from __future__ import annotations

import pytest

from conftest import PAPERS
from fake_llm import FakeLLM
from paperdesk.core.discussion.observer import Observer
from paperdesk.core.discussion.outline import build_outline
from paperdesk.core.discussion.student import Topic
from paperdesk.core.discussion.teacher import Teacher, sentences
from paperdesk.core.discussion.types import Turn
from paperdesk.core.memory import Entity, MemoryGraph, Observation

pytestmark = pytest.mark.slow  # the real embedder

QUESTION = "How did the study summarize civil rights lawsuits at multiple granularities?"
FACT = ("Multi-LexSum pairs each civil rights lawsuit with expert-written summaries at three granularities: "
        "long, short and tiny.")
FACT_PAGE = 3
TERM = "summary granularity"  # the memory entity: a term, which must never show as a paper's title


@pytest.fixture
def two_papers(library):
    own = library.add_pdf(PAPERS / "2304.02623v1.pdf").paper
    other = library.add_pdf(PAPERS / "2206.10883v3.pdf").paper
    memory = MemoryGraph.for_library(library)
    # a fact read earlier from the other paper's page (no discussion turn: it is the paper's, not model text)
    memory.create_entities([Entity(TERM, "term", [Observation(FACT, paper_id=other.id, page=FACT_PAGE)])])
    yield library, memory, own, other
    memory.close()


def EchoingStandIn(text: str) -> FakeLLM:  # noqa: N802 - named for what it is in this test
    return FakeLLM(text)


def test_teacher_draws_on_another_library_paper_and_a_memory_fact_cited_as_paper_and_page(two_papers):
    library, memory, own, other = two_papers
    outline = build_outline(library.store, own.id, own.title)
    teacher = Teacher(library, EchoingStandIn(""), outline, memory=memory)
    topic = Topic("term", "lawsuits")

    sources = teacher.gather(QUESTION, topic)
    kinds = [s.kind for s in sources]
    assert kinds[0] == "paper" and all(s.paper_id == own.id for s in sources if s.kind == "paper")
    (library_source,) = [s for s in sources if s.kind == "library"]
    assert library_source.paper_id == other.id and library_source.title == other.title
    assert library_source.label(own.id) == f"[{other.id}, p. {library_source.page}]"
    (remembered,) = [s for s in sources if s.kind == "memory"]
    # the memory fact is cited as its paper and page, and carries that paper's title (not the entity name)
    assert (remembered.paper_id, remembered.page, remembered.text) == (other.id, FACT_PAGE, FACT)
    assert remembered.title == other.title
    assert remembered.label(own.id) == f"[{other.id}, p. {FACT_PAGE}]"

    # the answer: one sentence of each outside source, as a model that used them would write
    borrowed = next(s for s in sentences(library_source.text) if len(s.split()) >= 8)
    teacher.backend = EchoingStandIn(f"{FACT} {borrowed}")
    answer = teacher.answer(QUESTION, topic)
    assert f"[{other.id}, p. {FACT_PAGE}]" in answer.text, answer.text
    cited = {(c["kind"], c["paper_id"], c["page"]) for c in answer.citations}
    assert ("memory", other.id, FACT_PAGE) in cited
    memory_citation = next(c for c in answer.citations if c["kind"] == "memory")
    assert memory_citation["title"] == other.title and memory_citation["label"] == f"[{other.id}, p. {FACT_PAGE}]"
    assert answer.literature == [other.id]
    # the prompt named the fact's paper by its title, never the memory entity's name as a title
    prompt = teacher.backend.requests[-1].prompt
    assert f"(other paper {other.title.split(':', 1)[0][:60]}, p. {FACT_PAGE})" in prompt
    assert f"other paper {TERM}" not in prompt

    # the summary's literature annotation comes from those citations
    turn = Turn(1, topic.to_json(), QUESTION, answer.text, answer.citations, answer.sections, answer.pages,
                answer.literature, answer.cited_share, False)
    (entry,) = Observer(outline, library.embedder.encode).summary([turn])
    assert entry["literature"] == [other.id]


def test_a_memory_fact_about_a_paper_no_longer_in_the_library_is_not_a_source(two_papers):
    library, memory, own, other = two_papers
    memory.create_entities([Entity("lawsuit summaries", "term", [
        Observation("Civil rights lawsuit summaries are written by legal experts at multiple granularities.",
                    paper_id="2101.00001", page=2)])])
    memory.delete_entities([TERM])
    teacher = Teacher(library, EchoingStandIn(""), build_outline(library.store, own.id, own.title), memory=memory)
    assert [s for s in teacher.gather(QUESTION, Topic("term", "lawsuits")) if s.kind == "memory"] == []
