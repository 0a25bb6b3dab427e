"""First pages laid out as three common templates set them, written with PyMuPDF for front-matter tests.

Each maker writes a 3-page PDF whose page 1 follows a real template's front
matter: an ACL-style title over two tightly led lines, an ACM journal's
author lines in capitals with the abstract run in without a heading, and
authors set in the body font above an abstract with no heading. Pages 2-3 are
body text so that the body font size is the one most characters use.
"""

from __future__ import annotations

from pathlib import Path

import pymupdf

SERIF_BOLD = Path("/usr/share/fonts/truetype/dejavu/DejaVuSerif-Bold.ttf")  # tall glyph box: lines overlap

BODY = ("the participants read each paper twice and wrote down every claim they could not check "
        "against its sources before the second session started again")


def _new_page(doc: pymupdf.Document) -> pymupdf.Page:
    return doc.new_page(width=612, height=792)


def _place(page: pymupdf.Page, *lines: tuple[float, float, str, float, str]) -> None:
    """Write each (x, y, text, font size, font name) line where it says."""
    for x, y, text, size, font in lines:
        page.insert_text((x, y), text, fontsize=size, fontname=font)


def _body_pages(doc: pymupdf.Document, pages: int = 2) -> None:
    for _ in range(pages):
        page = _new_page(doc)
        y = 80.0
        while y < 720:
            page.insert_text((72, y), BODY[:95], fontsize=10, fontname="tiro")
            y += 12


def _prose(page: pymupdf.Page, y: float, lines: list[str], size: float = 10, x: float = 72) -> float:
    for line in lines:
        page.insert_text((x, y), line, fontsize=size, fontname="tiro")
        y += size * 1.2
    return y


def _introduction_and_save(doc: pymupdf.Document, page: pymupdf.Page, y: float, heading: str, size: float,
                           font: str, path: Path, metadata: dict | None = None, lead: float = 20) -> Path:
    """Page 1 ends with the first section's heading at `y` and two body lines `lead` below it; then the body
    pages; saved to `path`."""
    page.insert_text((72, y), heading, fontsize=size, fontname=font)
    _prose(page, y + lead, [BODY[:90], BODY[:90]])
    _body_pages(doc)
    return _save(doc, path, metadata)


def _save(doc: pymupdf.Document, path: Path, metadata: dict | None = None) -> Path:
    doc.set_metadata({"creationDate": "", "modDate": "", **(metadata or {})})
    doc.save(path)
    return path


def tight_title(path: Path) -> Path:
    """A title over two lines whose glyph boxes overlap (a tall bold font in a tight leading)."""
    doc = pymupdf.open()
    page = _new_page(doc)
    page.insert_font(fontname="tb", fontfile=str(SERIF_BOLD))
    _place(page, (110, 80, "LongEval: Guidelines for Human Evaluation of", 15, "tb"),
           (140, 96, "Faithfulness in Long-form Summarization", 15, "tb"))
    x = 120.0
    for name, mark in (("Kalpesh Krishna", "a"), ("Erin Bransom", "b"), ("Bailey Kuehl", "b"), ("Mohit Iyyer", "a")):
        page.insert_text((x, 130), name, fontsize=12, fontname="tibo")
        x += pymupdf.get_text_length(name, "tibo", 12)
        page.insert_text((x + 1, 125), mark, fontsize=7, fontname="tiro")
        x += 18
    page.insert_text((170, 146), "aUniversity of Massachusetts Amherst  bAllen Institute for AI", fontsize=11,
                     fontname="tiro")
    page.insert_text((280, 180), "Abstract", fontsize=12, fontname="tibo")
    _prose(page, 200, [BODY[:60], BODY[60:120], BODY[:60]])
    _body_pages(doc)
    return _save(doc, path, {"creationDate": "D:20230125120000Z"})


def acm_journal(path: Path) -> Path:
    """An ACM journal's page 1: authors in capitals, an abstract with no heading, an ACM reference block."""
    doc = pymupdf.open()
    page = _new_page(doc)
    _place(page, (72, 90, "Paper Plain: Making Medical Research Papers Approachable to", 14.4, "hebo"),
           (72, 108, "Healthcare Consumers with Natural Language Processing", 14.4, "hebo"))
    y = 132.0
    for who, where in (("TAL AUGUST", "University of Washington, USA"),
                       ("LUCY LU WANG", "University of Washington, USA"),
                       ("JONATHAN BRAGG", "Allen Institute for AI, USA"),
                       ("MARTI A. HEARST", "University of California, Berkeley, USA"),
                       ("ANDREW HEAD", "University of Pennsylvania, USA"),
                       ("KYLE LO", "Allen Institute for AI, USA")):
        page.insert_text((72, y), f"{who}, {where}", fontsize=10, fontname="helv")
        y += 13
    y = _prose(page, y + 8, [
        "When seeking information not covered in patient-friendly documents, healthcare consumers may turn",
        "to the research literature, which reports findings as Named Entity Recognition, Relation Extraction",
        "and other results that are hard to read. We present a reading interface that helps the reader along",
        "and we evaluate it with readers who are not experts in the medical field at all in the study.",
    ], size=9)
    y = _prose(page, y + 6, ["CCS Concepts: Human-centered computing; Interactive systems and tools."], size=9)
    y = _prose(page, y + 6, [
        "ACM Reference Format:",
        "Tal August, Lucy Lu Wang, Jonathan Bragg, Marti A. Hearst, Andrew Head, and Kyle Lo. 2023. Paper Plain:",
        "Making Medical Research Papers Approachable to Healthcare Consumers with Natural Language Processing.",
    ], size=8)
    return _introduction_and_save(doc, page, y + 20, "1 INTRODUCTION", 10, "hebo", path,
                                  {"creationDate": "D:20240301090000Z"}, lead=16)


def body_font_authors(path: Path) -> Path:
    """Authors in the body font, then an abstract with no heading that names capitalised methods."""
    doc = pymupdf.open()
    page = _new_page(doc)
    _place(page, (120, 80, "SciBERT: A Pretrained Language Model for Scientific Text", 15, "tibo"),
           (210, 104, "Iz Beltagy, Kyle Lo and Arman Cohan", 10, "tiro"),
           (170, 117, "Allen Institute for Artificial Intelligence, Seattle, WA, USA", 10, "tiro"))
    _prose(page, 150, [
        "Obtaining large-scale annotated data for tasks in the scientific domain is challenging and expensive.",
        "We release a pretrained language model and evaluate it on sequence tagging with a",
        "Conditional Random Field, Named Entity Recognition,",
        "and on dependency parsing, with datasets from a variety of scientific domains and fields.",
    ])
    return _introduction_and_save(doc, page, 220, "1 Introduction", 12, "tibo", path)
