"""A table's figures are found by search like any passage, with the table's page to cite.

Real library (SQLite, tantivy, MiniLM) over the Multi-LexSum fixture PDF, whose split sizes are only in
Table 8 (p. 21).
"""

from __future__ import annotations

from pathlib import Path

import pytest

pytestmark = pytest.mark.slow  # the real embedding model indexes the fixture paper

PAPERS = Path(__file__).resolve().parents[1] / "fixtures" / "papers"


@pytest.fixture
def paper(library):
    return library.add_pdf(PAPERS / "2206.10883v3.pdf").paper


@pytest.mark.parametrize("mode", ["keyword", "vector", "hybrid"])
def test_a_question_the_table_answers_finds_the_table_and_its_page(library, paper, mode):
    hits = library.search("How many cases are in the Multi-LexSum train, dev and test splits?", k=5, mode=mode)
    table = [h for h in hits if h.section == "Table 8"]
    assert table, [(h.section, h.page_start) for h in hits]
    assert table[0].page_start == 21 and table[0].paper_id == paper.id
    chunk = library.store.chunks_by_ids([table[0].chunk_id])[table[0].chunk_id]
    assert "Train (70%); Source D: 28,557" in chunk.text


def test_research_and_ask_evidence_holds_the_table_passage_with_its_page(library, paper):
    from paperdesk.core.agents import answer as answers
    from paperdesk.core.research import tools as t

    question = "How many cases are in the Multi-LexSum train, dev and test splits?"
    hits = answers.retrieve(library, question, 5)  # what ask answers from
    assert any(h.section == "Table 8" and h.page_start == 21 for h in hits), [(h.section, h.page_start) for h in hits]
    found = t.library_search(t.ToolContext(library, None, library.settings), {"query": question}, {})  # research
    table = [p for p in found["passages"] if p["section"] == "Table 8"]
    assert table and table[0]["page"] == 21 and "Total: 6,517" in table[0]["text"]
