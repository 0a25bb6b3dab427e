"""The teacher's turn lists the works its cited passage cites where it supports the answer.

Real library (SQLite, tantivy, MiniLM) holding CiteSee (2302.07302), whose passages cite by number. The
text the teacher's model writes comes from FakeLLM: it is NOT a model, it writes one sentence of the
paper's own passage, so the test is about which works the turn lists (literature.py) and how.
"""

from __future__ import annotations

import pytest

from library_helpers import library_fixture
from fake_llm import FakeLLM
from paperdesk.core.discussion.observer import Observer
from paperdesk.core.discussion.outline import build_outline
from paperdesk.core.discussion.student import Topic
from paperdesk.core.discussion.teacher import Teacher
from paperdesk.core.discussion.types import Turn

pytestmark = pytest.mark.slow  # the real embedder

QUESTION = "How often do inline citations lead readers to discover papers?"
SAID = ("One survey study estimated that inline citations accounted for around one in five (21%) of paper "
        "discoveries during research")


library = library_fixture("2302.07302v1.pdf")


def test_a_supported_answer_lists_the_works_its_passage_cites_there(library):
    paper = library.store.list_papers()[0]
    outline = build_outline(library.store, paper.id, paper.title)
    teacher = Teacher(library, FakeLLM(""), outline)
    sources = teacher.gather(QUESTION, Topic("overview", outline.title))
    n = next(i for i, s in enumerate(sources, 1) if s.kind == "paper" and "one in five (21%)" in s.text)
    teacher.backend = FakeLLM(f"{SAID} [{n}].")
    answer = teacher.answer(QUESTION, Topic("overview", outline.title))
    assert answer.supported and not answer.not_found
    assert ("[33] King et al. (2009): Scholarly journal information-seeking and reading patterns of faculty at "
            "five US universities") in answer.works
    assert len(answer.works) <= 3  # the works around the supporting sentence, not the whole passage's
    turn = Turn(1, Topic("overview", outline.title).to_json(), QUESTION, answer.text, answer.citations,
                answer.sections, answer.pages, answer.literature, answer.cited_share, True,
                supported=answer.supported, works=answer.works)
    entry = Observer(outline, library.embedder.encode).summary([turn])[0]
    assert entry["answer"] == answer.supported[0] and entry["answer"].startswith(SAID)
    assert entry["literature"] == answer.works


def test_a_passage_over_a_page_break_is_cited_on_the_page_of_the_words_used(library):
    from paperdesk.core.discussion.teacher import Source

    paper = library.store.list_papers()[0]
    outline = build_outline(library.store, paper.id, paper.title)
    chunk = next(c for c in library.store.chunks_of(paper.id)
                 if (c.page_start, c.page_end) == (1, 2) and "skim many papers" in c.text)
    source = Source("paper", chunk.text, paper.id, paper.title, chunk.page_start, chunk.section, chunk.id)
    teacher = Teacher(library, FakeLLM("Literature reviews are especially challenging, as users read and skim many "
                                       "papers with dozens or hundreds of inline citations [1]."), outline)
    teacher.gather = lambda *args, **kwargs: [source]  # the answer's one source: the passage over pages 1-2
    answer = teacher.answer("Why are inline citations hard to prioritize during literature reviews?",
                            Topic("overview", outline.title))
    assert answer.text.endswith("[p. 2].") and answer.pages == [2]
    assert [c["page"] for c in answer.citations] == [2] and answer.citations[0]["label"] == "[p. 2]"
