"""Tables as evidence: a captioned table on a real fixture page becomes chunks of "column: value" rows."""

from __future__ import annotations

from pathlib import Path

import pymupdf
import pytest

from paperdesk.core.ingest.pdf import ParsedPdf, parse_pdf
from paperdesk.core.ingest.tables import is_table_section, page_tables, render_row, table_chunks

PAPERS = Path(__file__).resolve().parents[1] / "fixtures" / "papers"
_cache: dict[str, ParsedPdf] = {}


def parsed(name: str) -> ParsedPdf:
    if name not in _cache:
        _cache[name] = parse_pdf(PAPERS / name)
    return _cache[name]


def tables_of(name: str) -> list:
    return [c for c in parsed(name).chunks if is_table_section(c.section)]


def test_a_booktabs_table_is_read_row_by_row_under_its_caption_and_page() -> None:
    found = [c for c in tables_of("2206.10883v3.pdf") if c.section == "Table 8"]
    assert len(found) == 1
    chunk = found[0]
    assert (chunk.page_start, chunk.page_end) == (21, 21)
    lines = chunk.text.splitlines()
    assert lines[0] == "Table 8: Multi-LexSum train-dev-test splits."
    assert "Train (70%); Source D: 28,557; Long L: 3,177; Short S: 2,210; Tiny T: 1,130; Total: 6,517." in lines
    assert "Dev (10%); Source D: 4,134; Long L: 454; Short S: 312; Tiny T: 161; Total: 927." in lines


def test_group_headers_over_a_partial_rule_name_every_column_under_them() -> None:
    text = "\n".join(c.text for c in tables_of("2206.10883v3.pdf") if c.section == "Table 3")
    assert ("Models: PRIMERA; D →L R-1f1: 53.73; D →L R-2f1: 27.32; D →L R-Lf1: 30.89; D →L BSf1: 42.01; "
            "D →L Words: 416.3; D →S R-1f1: 45.51") in text
    # a long table is cut into parts; each after the first opens with a short caption
    parts = [c.text.splitlines()[0] for c in tables_of("2206.10883v3.pdf") if c.section == "Table 3"]
    assert parts == ["Table 3: Performance of baseline models on different MDS tasks in Multi-LexSum.",
                     "Table 3 (continued): Performance of baseline models on different MDS tasks in Multi-LexSum."]


def test_a_caption_under_its_table_and_group_rows_are_read() -> None:
    papermage = {c.section: c for c in tables_of("papermage.pdf") if c.page_start == 5}
    assert "Model: I-VILA; P: 92.0; Full R: 94.1; F1: 92.7; Grobid Subset P: 92.2" in papermage["Table 2"].text
    multi = "\n".join(c.text for c in tables_of("2206.10883v3.pdf") if c.section == "Table 2")
    assert "\nShort:\nDataset: BigPatent; Samples: 1,341,362;" in multi  # a group label stands on its own line
    # Two group labels on one line among rows of figures label the rows below, not the row above.
    five = next(c.text for c in tables_of("2206.10883v3.pdf") if c.section == "Table 5")
    assert "\nBART, Multitask: L →{S, T} / BART, Single-task: L →S, L →T:\n" in five
    assert "\nLengths: T; Samples: 6517; R-1f1: 25.38; R-2f1: 8.92;" in five


def test_text_that_only_looks_like_a_table_is_not_one() -> None:
    # Page 3's Table 1 is highlighted prose: PyMuPDF's find_tables cuts it into word fragments ("qual Emplo").
    pages = {c.page_start for c in tables_of("2206.10883v3.pdf")}
    assert 3 not in pages
    with pymupdf.open(PAPERS / "2206.10883v3.pdf") as doc:
        assert page_tables(doc[2], 3) == []
    # No captioned table in CiteSee or the four-page paper: no table chunks, and nothing else changes.
    assert tables_of("2302.07302v1.pdf") == [] and tables_of("2304.02623v1.pdf") == []


def test_every_table_chunk_fits_the_chunk_size_and_names_its_table() -> None:
    for name in ("2206.10883v3.pdf", "papermage.pdf"):
        for c in tables_of(name):
            assert len(c.text.split()) <= 1.25 * 300, c.section
            assert c.text.startswith(c.section), c.text[:40]


@pytest.mark.parametrize("header,row,want", [
    (["Model", "P", "R"], ["BART", "40.1", ""], "Model: BART; P: 40.1."),
    (["", "Total"], ["Train (70%)", "6,517"], "Train (70%); Total: 6,517."),
    (["Model", "P"], ["Group A"], "Group A:"),
    (["Model", "P"], ["", ""], ""),
])
def test_rows_render_as_name_value_pairs(header, row, want) -> None:
    assert render_row(header, row) == want


def test_table_chunks_of_nothing_is_nothing() -> None:
    assert table_chunks([], 300) == []


def _stats_page(boxes: bool) -> pymupdf.Page:
    """A page with a corpus-statistics table drawn as cell boxes (boxes) or with rules and no verticals."""
    doc = pymupdf.open()
    page = doc.new_page()
    page.insert_text((72, 90), "Table 3: Corpus statistics of the collection.", fontsize=9)
    rows = [["Statistic", "Value"], ["Papers", "81.1M"], ["Full texts", "8.1M"], ["Citations", "380.5M"]]
    x, top, h = [72, 200, 300], 100, 16
    for i, row in enumerate(rows):
        if not boxes:
            page.draw_line((x[0], top + i * h), (x[-1], top + i * h))
        for j, cell in enumerate(row):
            if boxes:
                page.draw_rect(pymupdf.Rect(x[j], top + i * h, x[j + 1], top + (i + 1) * h))
            page.insert_text((x[j] + 4, top + i * h + 12), cell, fontsize=9)
    if not boxes:
        page.draw_line((x[0], top + len(rows) * h), (x[-1], top + len(rows) * h))
    page.insert_text((72, 400), "The body of the paper goes on here, in sentences long enough to read as prose.")
    return page


@pytest.mark.parametrize("boxes", [False, True])
def test_a_grid_of_boxes_goes_to_find_tables_and_a_ruled_one_is_read_from_the_words(boxes, monkeypatch) -> None:
    from paperdesk.core.ingest import tables

    calls: list[int] = []
    real = tables._find_tables
    monkeypatch.setattr(tables, "_find_tables", lambda page: calls.append(1) or real(page))
    found = page_tables(_stats_page(boxes), 5)
    assert [(t.label, t.header, t.rows) for t in found] == [
        ("Table 3", ["Statistic", "Value"], [["Papers", "81.1M"], ["Full texts", "8.1M"], ["Citations", "380.5M"]])]
    assert len(calls) == (1 if boxes else 0)  # find_tables (slow) only where rules next to the caption are missing
    chunk = table_chunks(found, 300)[0]
    assert chunk.text == ("Table 3: Corpus statistics of the collection.\nStatistic: Papers; Value: 81.1M.\n"
                          "Statistic: Full texts; Value: 8.1M.\nStatistic: Citations; Value: 380.5M.")
