"""A question names a metric in full ("ROUGE-1", "BERTScore"); the table's header abbreviates it ("R-1f1").

Real library (SQLite, tantivy, MiniLM) over the Multi-LexSum fixture PDF: Tables 3, 4, 5 and 9 report
"R-1f1", "R-2f1", "R-Lf1" and "BSf1" and no caption says ROUGE, so only the spelled-out metric line under
each caption lets search and the answer's evidence find them.
"""

from __future__ import annotations

import pytest

from library_helpers import library_fixture
from paperdesk.core.text.metric_names import expand, metric_line

pytestmark = pytest.mark.slow  # the real embedding model indexes the fixture paper

ROUGE_TABLES = {"Table 3", "Table 4", "Table 5", "Table 9"}


library = library_fixture("2206.10883v3.pdf")


def test_the_stored_table_chunk_names_its_metrics(library):
    paper = library.store.list_papers()[0]
    table3 = [c for c in library.store.chunks_of(paper.id) if c.section == "Table 3"]
    assert table3 and all(c.text.splitlines()[1] == "Metrics: R-1f1 = ROUGE-1 F1; R-2f1 = ROUGE-2 F1; "
                                                   "R-Lf1 = ROUGE-L F1; BSf1 = BERTScore F1." for c in table3)


@pytest.mark.parametrize("question", [
    "Which model has the best ROUGE-1?",
    "ROUGE-1",
    "ROUGE-2 scores of BART",
    "What ROUGE-L does PRIMERA reach?",
])
def test_keyword_search_for_a_spelled_out_metric_finds_the_table(library, question):
    hits = library.search(question, k=5, mode="keyword")
    assert ROUGE_TABLES & {h.section for h in hits}, [(h.section, h.page_start) for h in hits]


def test_the_answer_evidence_for_a_rouge_question_holds_a_rouge_table(library):
    from paperdesk.core.agents import answer as answers

    hits = answers.retrieve(library, "What ROUGE-1 score does BART get on the long summaries?", 5)
    tables = [h for h in hits if h.section in ROUGE_TABLES]
    assert tables, [(h.section, h.page_start) for h in hits]
    chunk = library.store.chunks_by_ids([tables[0].chunk_id])[tables[0].chunk_id]
    assert "R-1f1" in chunk.text and "ROUGE-1" in chunk.text


@pytest.mark.parametrize("name,full", [
    ("R-1", "ROUGE-1"), ("R-2", "ROUGE-2"), ("R-L", "ROUGE-L"), ("R-1f1", "ROUGE-1 F1"), ("RG-L", "ROUGE-L"),
    ("B-4", "BLEU-4"), ("BLEU-4", None), ("ROUGE-1", None), ("Acc.", "accuracy"), ("F1", "F1 score"),
    ("BSf1", "BERTScore F1"), ("EM", "exact match"), ("Model", None), ("BS", None), ("Words", None),
])
def test_abbreviations_spelled_out(name, full):
    assert expand(name) == full


def test_ambiguous_names_are_read_only_beside_their_kind():
    assert metric_line(["Model", "R1", "Round"]) == ""  # a lone R1 is not ROUGE
    assert metric_line(["Model", "R1", "R2", "RL"]) == "Metrics: R1 = ROUGE-1; R2 = ROUGE-2; RL = ROUGE-L."
    assert metric_line(["Model", "P", "R"]) == ""  # precision and recall only beside an F1 column
    assert metric_line(["Model", "P", "R", "F1"]) == "Metrics: P = precision; R = recall; F1 = F1 score."
    assert metric_line(["Split", "Total"]) == ""
