"""The teacher answers from the paper under discussion: another library paper only when the question names it.

Real library (SQLite, tantivy, MiniLM) holding two fixture papers on related topics: "Beyond
Summarization" (2304.02623, the one discussed) and Multi-LexSum (2206.10883, whose expert-written
lawsuit summaries fit some questions better than any passage of the first). The text the teacher's model
writes comes from `EchoingStandIn`: FakeLLM, NOT a model, fed one sentence of the other paper's passage
(what a model that read it would write), so the test is about which sources the teacher may use and how
it cites them. Before the answer is "not found", the paper's own passages are read again.
"""

from __future__ import annotations

import re
from types import SimpleNamespace

import pytest

from fake_llm import FakeLLM
from library_helpers import library_fixture
from paperdesk.core.discussion.figures import cited_share
from paperdesk.core.discussion.named_papers import named_papers, names_paper
from paperdesk.core.discussion.outline import build_outline
from paperdesk.core.discussion.student import Topic
from paperdesk.core.discussion.teacher import Teacher, sentences
from paperdesk.core.discussion.truthful import NOT_FOUND, QUOTED
from paperdesk.core.discussion.types import Turn
from paperdesk.core.memory import Entity, MemoryGraph, Observation

OWN_PDF, OTHER_PDF = "2304.02623v1.pdf", "2206.10883v3.pdf"
# fits a Multi-LexSum passage (its reviewers of expert-written case summaries) better than any of the paper's
UNNAMED = "What do the legal experts write in the case summaries?"
NAMED = "What do the legal experts write in the Multi-LexSum case summaries?"

library = library_fixture(OWN_PDF, OTHER_PDF)


def EchoingStandIn(text: str) -> FakeLLM:  # noqa: N802 - named for what it is in this test
    return FakeLLM(text)


@pytest.fixture(scope="module")
def papers(library):
    listed = {p.title.split(":", 1)[0]: p for p in library.store.list_papers()}
    return listed["Beyond Summarization"], listed["Multi-LexSum"]


def _borrowed(library, own, other) -> str:
    """A sentence of the other paper's passage that best fits UNNAMED: what a model reading it would write."""
    (hit,) = [h for h in library.search(UNNAMED, k=10) if h.paper_id == other.id][:1]
    text = library.store.chunks_by_ids([hit.chunk_id])[hit.chunk_id].text
    return next(s for s in sentences(" ".join(text.split())) if 8 <= len(s.split()) <= 40 and "[" not in s)


def _turn(question: str, answer) -> Turn:  # noqa: ANN001
    return Turn(1, {"kind": "overview", "target": "", "section": ""}, question, answer.text, answer.citations,
                answer.sections, answer.pages, answer.literature, answer.cited_share, True,
                supported=answer.supported, not_found=answer.not_found)


def test_another_papers_passage_that_fits_best_is_not_used_unless_the_question_names_it(library, papers):
    own, other = papers
    outline = build_outline(library.store, own.id, own.title)
    teacher = Teacher(library, EchoingStandIn(""), outline)
    assert [s for s in teacher.gather(UNNAMED, Topic("overview", outline.title)) if s.paper_id != own.id] == []

    teacher.backend = EchoingStandIn(_borrowed(library, own, other) + " [4].")
    answer = teacher.answer(UNNAMED, Topic("overview", outline.title))
    assert other.id not in answer.text and answer.literature == []
    assert all(c["paper_id"] == own.id for c in answer.citations)
    turn = _turn(UNNAMED, answer)
    # the figure is the stored answer's: a not-found quote is no supported, cited sentence of the teacher's
    assert cited_share(turn) == (0.0 if answer.not_found else 1.0)


def test_a_question_naming_the_other_paper_gets_its_passage_cited_as_that_paper(library, papers):
    own, other = papers
    outline = build_outline(library.store, own.id, own.title)
    teacher = Teacher(library, EchoingStandIn(""), outline)
    sources = teacher.gather(NAMED, Topic("overview", outline.title))
    (borrowed,) = [s for s in sources if s.kind == "library"]
    assert borrowed.paper_id == other.id
    said = next(s for s in sentences(" ".join(borrowed.text.split())) if 8 <= len(s.split()) <= 40 and "[" not in s)
    teacher.backend = EchoingStandIn(f"{said} [{sources.index(borrowed) + 1}].")
    answer = teacher.answer(NAMED, Topic("overview", outline.title))
    assert f"[{other.id}, p. " in answer.text and answer.literature == [other.id]


def test_a_memory_fact_of_a_paper_the_question_does_not_name_is_not_a_source(library, papers, tmp_path):
    own, other = papers
    fact = ("After a summary is written, a reviewer with additional training then checks the summaries for "
            "factual accuracy.")
    page = next(p for p in range(1, other.page_count + 1)
                if "factual accuracy" in (library.store.page_text(other.id, p) or ""))
    memory = MemoryGraph(tmp_path / "memory.sqlite", library.embedder)
    memory.create_entities([Entity("case summaries", "term", [Observation(fact, paper_id=other.id, page=page)])])
    teacher = Teacher(library, EchoingStandIn(""), build_outline(library.store, own.id, own.title), memory=memory)
    assert [s for s in teacher.gather(UNNAMED, Topic("overview", own.title)) if s.kind == "memory"] == []
    assert [s.paper_id for s in teacher.gather(NAMED, Topic("overview", own.title)) if s.kind == "memory"] == [other.id]
    memory.close()


def test_a_paper_is_named_by_its_id_its_short_title_or_most_of_its_titles_own_words():
    own = "Beyond Summarization: Designing AI Support for Real-World Expository Writing Tasks"
    title = "Multi-LexSum: Real-World Summaries of Civil Rights Lawsuits at Multiple Granularities"
    other = SimpleNamespace(id="2206.10883v3", arxiv_id="2206.10883", title=title)
    assert names_paper("What does 2206.10883 release?", other, own)
    assert names_paper("How long are Multi-LexSum's tiny summaries?", other, own)
    assert names_paper("How were civil rights lawsuits summarized at multiple granularities?", other, own)
    assert not names_paper("What do the legal experts write in the case summaries?", other, own)
    assert not names_paper("How do real-world writing tasks differ?", other, own)  # a word both titles have
    mine = SimpleNamespace(id="own", arxiv_id=None, title=own)
    assert named_papers("How long are Multi-LexSum summaries?", [mine, other], "own", own) == ["2206.10883v3"]


def test_before_not_found_the_papers_own_sentence_holding_the_questions_words_is_quoted(library, papers):
    own, _ = papers
    outline = build_outline(library.store, own.id, own.title)
    invented = "Expository pieces are written by committees of journalists over many years [1]."
    teacher = Teacher(library, FakeLLM(invented), outline)
    question = "How do the authors define expository writing pieces?"
    answer = teacher.answer(question, Topic("overview", outline.title))
    assert not answer.not_found and answer.text.startswith(QUOTED), answer.text
    quote, page = re.match(r'.*?"(.+?)" \[p\. (\d+)\]\.$', answer.text).groups()
    assert "expository writing pieces" in quote and quote.rstrip(".") in " ".join(
        re.sub(r"(\w)-\s+(\w)", r"\1\2", library.store.page_text(own.id, int(page))).split())
    assert answer.supported == [answer.text] and "committees" not in answer.text
    # a question whose own words the paper's passages do not hold is still not found, closest passage quoted
    answer = Teacher(library, FakeLLM(invented), outline).answer(
        "What programming language is the writing assistant implemented in?", Topic("overview", outline.title))
    assert answer.not_found and answer.text.startswith(NOT_FOUND)


def test_a_question_no_passage_is_close_to_still_gets_the_closest_passage_quoted(library, papers):
    own, _ = papers
    outline = build_outline(library.store, own.id, own.title)
    model = FakeLLM("Grandmasters preferred the Sicilian defence in 1972 [1].")
    teacher = Teacher(library, model, outline)
    question = "Which chess openings did grandmasters prefer in 1972?"
    assert teacher.gather(question, Topic("overview", outline.title)) == []  # nothing is close enough to answer
    answer = teacher.answer(question, Topic("overview", outline.title))
    assert answer.not_found and answer.text.startswith(NOT_FOUND), answer.text
    quote, first, last = re.match(r'.*?"(.+?)" \[pp?\. (\d+)(?:-(\d+))?\]\.$', answer.text).groups()
    pages = " ".join(library.store.page_text(own.id, p) or "" for p in range(int(first), int(last or first) + 1))
    assert quote.removesuffix(" ...").rstrip(".") in " ".join(pages.split())
    assert model.requests == []  # the model never wrote from passages that do not answer
    assert [c["paper_id"] for c in answer.citations] == [own.id]
