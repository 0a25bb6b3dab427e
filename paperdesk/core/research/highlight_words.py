"""The text under a highlight, read from PyMuPDF's words rather than by clipping characters.

`page.get_textbox(rect)` clips characters to the rectangle: on a page with marginal labels,
superscripts or a large decorated heading it returns letters of neighbouring words and splits
others ("3 The L faithfu ONG ulness E s h"). Whole words are taken instead: those of
`page.get_text("words")` that lie mostly inside one of the highlight's rectangles, in reading
order (block, line, word number), with ligatures spelled out as the stored page text has them.
"""

from __future__ import annotations

from typing import Any, Sequence

import pymupdf

_FLAGS = pymupdf.TEXTFLAGS_WORDS & ~pymupdf.TEXT_PRESERVE_LIGATURES  # "ﬁled" -> "filed", as search_for matches


def _covered(word: Sequence[Any], rects: Sequence[Any]) -> bool:
    """Most of the word's width lies in rectangles that share most of a line's height with it.

    search_for gives a rectangle per span, so "(L)" in a math font is three of them; a math-italic
    letter's box stands taller than the line search_for measured.
    """
    x0, y0, x1, y1 = word[:4]
    across = 0.0
    for rect in rects:
        down = min(y1, rect.y1) - max(y0, rect.y0)
        if down >= 0.5 * max(min(y1 - y0, rect.y1 - rect.y0), 1e-6):
            across += max(min(x1, rect.x1) - max(x0, rect.x0), 0.0)
    return across >= 0.5 * max(x1 - x0, 1e-6)


def words_under(page: Any, rects: Sequence[Any], size: int | None = None) -> list[str]:
    """The page's words under the rectangles, in reading order; with `size`, the rectangles are taken
    in turn (search_for gives one per line of each hit) until at least `size` words are under them."""
    words = page.get_text("words", flags=_FLAGS)
    taken: list[Any] = []
    chosen: list[Sequence[Any]] = []
    for rect in rects:
        taken.append(rect)
        chosen = [w for w in words if _covered(w, taken)]
        if size is not None and len(chosen) >= size:
            break
    chosen.sort(key=lambda w: (w[5], w[6], w[7]))
    return [w[4] for w in chosen]
