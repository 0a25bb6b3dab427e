"""PDFs whose content streams inflate far beyond any real paper are refused before MuPDF interprets them.

Before the limits, the 40 KB file below (10 MB of text operators once inflated)
took 18 s and 790 MB to parse; a 200 MB stream took minutes. Now each is
refused in well under a second, and real papers parse as before.
"""

from __future__ import annotations

import time
from pathlib import Path

import pymupdf
import pytest

from conftest import PAPERS
from paperdesk.core.errors import PdfError
from paperdesk.core.ingest.inflate_limits import InflateGuard
from paperdesk.core.ingest.pdf import parse_pdf

TEXT_OPS = b"BT /helv 1 Tf 72 72 Td (aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa) Tj ET\n"
PATH_OPS = b"1 0 0 1 0 0 cm\n"


def inflating_pdf(path: Path, line: bytes, megabytes: int) -> Path:
    """A one-page PDF with real text whose content stream, once inflated, holds `megabytes` of `line`."""
    doc = pymupdf.open()
    page = doc.new_page()
    for k in range(20):
        page.insert_text((72, 100 + 14 * k), f"Line {k} of ordinary text that a reader would see.", fontsize=11)
    xref = page.get_contents()[0]
    doc.update_stream(xref, doc.xref_stream(xref) + line * (megabytes * (1 << 20) // len(line)), compress=True)
    doc.save(path, deflate=True)
    doc.close()
    return path


@pytest.mark.parametrize("line,megabytes,why", [(TEXT_OPS, 10, "more than 200 times"),
                                                (PATH_OPS, 40, "inflates to over")], ids=["text-10MB", "paths-40MB"])
def test_an_inflating_content_stream_is_refused_quickly(tmp_path, line, megabytes, why):
    pdf = inflating_pdf(tmp_path / "bomb.pdf", line, megabytes)
    assert pdf.stat().st_size < 200_000
    start = time.perf_counter()
    with pytest.raises(PdfError, match=f"bomb.pdf: refused: .*{why}.*decompression bomb"):
        parse_pdf(pdf)
    assert time.perf_counter() - start < 3.0


def test_page_and_document_limits(tmp_path):
    doc = pymupdf.open(PAPERS / "2302.07302v1.pdf")
    try:
        with pytest.raises(PdfError, match="page 1 inflates to over 1 KB"):
            InflateGuard(doc, "x.pdf", page_limit=1024).check(doc[0])
        guard = InflateGuard(doc, "x.pdf", document_limit=200 * 1024)
        with pytest.raises(PdfError, match="its pages inflate to over 200 KB"):
            for page in doc:
                guard.check(page)
        real = InflateGuard(doc, "x.pdf")
        for page in doc:
            real.check(page)  # a real paper is far under the limits
        assert 0 < real.total < 4 << 20
    finally:
        doc.close()


def test_a_small_stream_that_inflates_a_little_is_read(tmp_path):
    pdf = inflating_pdf(tmp_path / "ok.pdf", PATH_OPS, 1)  # 1 MB: repetitive but not a bomb
    assert "ordinary text" in parse_pdf(pdf).pages[0]


def test_adding_a_bomb_leaves_nothing(library, tmp_path):
    pdf = inflating_pdf(tmp_path / "bomb.pdf", TEXT_OPS, 10)
    with pytest.raises(PdfError, match="decompression bomb"):
        library.add_pdf(pdf)
    assert library.store.list_papers() == []
    assert not any((library.settings.home / "papers").glob("*.pdf"))
