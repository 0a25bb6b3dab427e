"""An answer's passages end their sentences where the page's paragraphs end: a heading, a line of code or a
block of console output is not glued to the prose sentence after it (real SQLite store; no model)."""

from __future__ import annotations

from pathlib import Path

from paperdesk.core.agents import evidence
from paperdesk.core.agents.passage_paragraphs import PARAGRAPH, marked, passage_texts, runs_on
from paperdesk.core.db.store import NewChunk, Paper, Store

PAGE_ONE = ("2.1 Sampling plan\n\n"
            "Plots were sampled every spring. The sampler is called as follows:\n\n"
            "fit <- sample_plots(x, rounds = 50) ## Rounds: 50\n\n"
            "The sampler repeats until the estimate settles (the default is 20 rounds). Each plot was\n\n"
            "weighed twice by hand after")
PAGE_TWO = ("the balance was checked each morning.\n\n"
            "3 Results\n\n"
            "Yields rose on every plot.")


def _chunk_text(*pages: str) -> str:
    return " ".join(" ".join(page.split()) for page in pages)


def test_a_heading_and_a_line_of_code_end_the_sentence_before_them() -> None:
    text = _chunk_text(PAGE_ONE)
    paragraphs = marked(text, [PAGE_ONE]).split(PARAGRAPH)
    assert paragraphs == [
        "2.1 Sampling plan",
        "Plots were sampled every spring. The sampler is called as follows:",
        "fit <- sample_plots(x, rounds = 50) ## Rounds: 50",
        "The sampler repeats until the estimate settles (the default is 20 rounds). Each plot was weighed twice "
        "by hand after",
    ]


def test_a_sentence_runs_on_across_a_broken_line_and_a_turned_page() -> None:
    text = _chunk_text(PAGE_ONE, PAGE_TWO)
    paragraphs = marked(text, [PAGE_ONE, PAGE_TWO]).split(PARAGRAPH)
    assert paragraphs[-3:] == [
        "The sampler repeats until the estimate settles (the default is 20 rounds). Each plot was weighed twice "
        "by hand after the balance was checked each morning.",
        "3 Results",
        "Yields rose on every plot.",
    ]
    assert runs_on("the first,", "Second") and runs_on("a pre-", "Diction") and runs_on("seen in (", "Table 2")
    assert not runs_on("the defaults:", "x <- f()") and not runs_on("It ends here.", "and then")


def test_a_chunk_that_starts_mid_page_keeps_only_its_own_breaks() -> None:
    text = _chunk_text(PAGE_ONE).split(" The sampler is called", 1)[1]
    text = "The sampler is called" + text
    out = marked(text, [PAGE_ONE])
    assert out.split(PARAGRAPH)[0] == "The sampler is called as follows:"
    assert " ".join(out.split()) == " ".join(text.split())  # the words are the chunk's, in its order


def test_text_not_found_on_its_pages_or_a_table_is_left_as_it_is() -> None:
    assert marked("Words the pages never hold in this order.", [PAGE_ONE]) == \
        "Words the pages never hold in this order."
    table = "Table 1: Yields.\nplot: A; yield: 3.1\nplot: B; yield: 2.7"
    assert marked(table, [table.replace("\n", "\n\n")]) == table
    assert marked("", [PAGE_ONE]) == ""


def test_evidence_sentences_end_at_a_paragraph_break() -> None:
    glued = "3 Results Yields rose on every plot."
    assert evidence.evidence_sentences(glued) == ["3 Results Yields rose on every plot."]
    assert evidence.evidence_sentences(f"3 Results{PARAGRAPH}Yields rose on every plot.") == \
        ["3 Results", "Yields rose on every plot."]


def test_passage_texts_reads_each_chunks_pages_from_the_store(tmp_path: Path) -> None:
    store = Store(tmp_path / "lib.sqlite")
    try:
        paper = Paper(id="local-plots", title="Plot Trials", authors=["A. Author"], arxiv_id=None, version=1)
        whole = _chunk_text(PAGE_ONE, PAGE_TWO)
        ids = store.add_paper(paper, [PAGE_ONE, PAGE_TWO],
                              [NewChunk(1, 2, "2.1 Sampling plan", whole), NewChunk(2, 2, "3 Results", "Yields rose.")],
                              [b"\0" * 8, b"\0" * 8])
        chunks = store.chunks_by_ids(ids)
        first, second = passage_texts(store, [chunks[ids[0]], chunks[ids[1]]])
        assert first.count(PARAGRAPH) == 5 and " ".join(first.split()) == whole
        assert second == "Yields rose."  # not the page's words in that order: as stored
    finally:
        store.close()
