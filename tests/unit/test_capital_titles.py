"""A title set in capitals at the body's size (journals, vignettes) is found as the title; the file's name
is never made the title while page 1 has one, and an arXiv stamp in the margin is never the title."""

from __future__ import annotations

import pymupdf

from paperdesk.core.ingest.pdf import parse_pdf

BODY = ("Quantile regression extends the classical least squares estimation of conditional mean models to the "
        "estimation of an ensemble of models for several conditional quantile functions of the response.")


def _paper(path, stamp: bool = False):
    doc = pymupdf.open()
    page = doc.new_page()
    page.insert_text((150, 90), "QUANTILE REGRESSION IN SMALL SAMPLES:", fontsize=10, fontname="Helvetica-Bold")
    page.insert_text((200, 104), "A SHORT VIGNETTE", fontsize=10, fontname="Helvetica-Bold")
    page.insert_text((240, 130), "Jane Roe", fontsize=10)
    y = 180
    for k in range(12):
        page.insert_text((72, y + 14 * k), BODY[k * 8:k * 8 + 90] or "More text of the body.", fontsize=10)
    if stamp:
        page.insert_text((20, 500), "arXiv:1707.04066v1  [astro-ph.EP]  13 Jul 2017", fontsize=20, rotate=90)
    doc.save(path)
    doc.close()
    return path


def test_a_title_in_capitals_at_body_size_is_the_title(tmp_path):
    for stamp in (False, True):
        parsed = parse_pdf(_paper(tmp_path / f"r-cran-quantreg__rq-{stamp}.pdf", stamp))
        assert parsed.title == "QUANTILE REGRESSION IN SMALL SAMPLES: A SHORT VIGNETTE", stamp
