"""A PDF that passes the inflate limits yet holds far more text than any paper is refused in one line, and
a document's tables are read only up to a cap of cells; real papers are far under every cap."""

from __future__ import annotations

import time
from pathlib import Path

import pymupdf
import pytest

from conftest import PAPERS
from paperdesk.core.errors import PdfError
from paperdesk.core.ingest import text_limits
from paperdesk.core.ingest.pdf import parse_pdf


def wordy_pdf(path: Path, pages: int, lines: int = 400, words: int = 60) -> Path:
    """Pages of tiny text, `lines` lines of `words` words each: machine-made text no paper has."""
    doc = pymupdf.open()
    for _ in range(pages):
        page = doc.new_page()
        line = " ".join(f"w{k}" for k in range(words))
        for k in range(lines):
            page.insert_text((10, 10 + 2 * k), line, fontsize=1.5)
    doc.save(path, deflate=True)
    doc.close()
    return path


def test_a_page_of_more_words_than_any_paper_is_refused(tmp_path):
    pdf = wordy_pdf(tmp_path / "dense.pdf", 1)  # 24,000 words on one page
    start = time.perf_counter()
    with pytest.raises(PdfError, match=r"dense.pdf: refused: page 1 holds over 20,000 words"):
        parse_pdf(pdf)
    assert time.perf_counter() - start < 20


def test_a_document_of_more_words_than_any_book_is_refused(tmp_path, monkeypatch):
    monkeypatch.setattr(text_limits, "DOCUMENT_WORDS", 30_000)  # the cap, scaled down to keep the test short
    pdf = wordy_pdf(tmp_path / "long.pdf", 3, lines=250)  # 15,000 words a page
    with pytest.raises(PdfError, match=r"long.pdf: refused: its pages hold over 30,000 words"):
        parse_pdf(pdf)


def test_tables_past_the_cell_cap_stay_in_the_text(monkeypatch):
    paper = PAPERS / "2206.10883v3.pdf"  # Multi-LexSum: several captioned tables
    full = parse_pdf(paper)
    tables = [c for c in full.chunks if c.section.startswith("Table ")]
    assert len({c.section for c in tables}) >= 2
    monkeypatch.setattr(text_limits, "TABLE_CELLS", 1)
    capped = parse_pdf(paper)
    assert not [c for c in capped.chunks if c.section.startswith("Table ")]
    assert capped.pages == full.pages  # the tables' text is still read as text


def test_real_papers_are_far_under_the_caps():
    for paper in sorted(PAPERS.glob("*.pdf")):
        parsed = parse_pdf(paper)
        words = [len(p.split()) for p in parsed.pages]
        assert max(words) < text_limits.PAGE_WORDS / 5 and sum(words) < text_limits.DOCUMENT_WORDS / 50
