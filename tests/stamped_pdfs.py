"""Small papers written with PyMuPDF, with or without arXiv's stamp up page 1's left margin as arXiv prints it.

Page 1 has a title, an author line and body text; page 2 more body text and, when asked, a reference list.
"""

from __future__ import annotations

from pathlib import Path

import pymupdf

TITLE = "Counting Near Earth Objects With Care"
AUTHORS = ["Ada Lovelace", "Alan Turing"]
BODY = "the survey counted every object twice and kept only those whose orbits both counts agreed on"


def _body(page: pymupdf.Page, y: float, lines: int) -> float:
    for _ in range(lines):
        page.insert_text((72, y), BODY, fontsize=10, fontname="tiro")
        y += 12
    return y


def _stamp(page: pymupdf.Page, stamp: str) -> None:
    """arXiv's stamp: grey, set bottom to top in the left margin."""
    page.insert_text((32, 560), stamp, fontsize=20, fontname="tiro", rotate=90, color=(0.5, 0.5, 0.5))


def paper(path: Path, stamp: str | None = None, references: tuple[str, ...] = (), stamp_on_page: int = 1,
          in_text: str = "") -> Path:
    """Write a two-page paper to `path`: `stamp` in page `stamp_on_page`'s margin, `in_text` as a line of page
    1's body, `references` as page 2's reference list."""
    doc = pymupdf.open()
    first = doc.new_page(width=612, height=792)
    first.insert_text((72, 100), TITLE, fontsize=18, fontname="hebo")
    first.insert_text((72, 130), " and ".join(AUTHORS), fontsize=11, fontname="tiro")
    y = _body(first, 170, 20)
    if in_text:
        first.insert_text((72, y), in_text, fontsize=10, fontname="tiro")
    second = doc.new_page(width=612, height=792)
    y = _body(second, 80, 30)
    if references:
        second.insert_text((72, y + 12), "References", fontsize=12, fontname="hebo")
        for n, ref in enumerate(references, start=1):
            second.insert_text((72, y + 12 + 14 * n), f"[{n}] {ref}", fontsize=9, fontname="tiro")
    if stamp:
        _stamp(doc[stamp_on_page - 1], stamp)
    doc.set_metadata({"creationDate": "", "modDate": ""})
    doc.save(path)
    doc.close()
    return path
