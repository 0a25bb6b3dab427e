"""Figure text kept out of the reading flow: axis ticks, legends and labels of a captioned figure.

A plot drawn in the PDF leaves its words in the text layer ("0 2 4 6", "Expression Level",
"n = 24"), and in reading order they land in the middle of the paragraph the figure
interrupts, so a sentence, or a printed result, is cut in two by the figure's labels. A
figure is found from its caption ("Figure 3:", "Fig. 2."): the vector drawings and images
that stand just above the caption (or just below one set above its figure), followed up the
page through the panels of a multi-panel figure. A line is figure text when its whole block
lies in that area: inside the drawings themselves, or in the margin around them (where
ticks and axis titles sit) when it is set smaller than the body text. The caption stays: it
says what the figure shows. A figure that is text in a frame (a listing, an algorithm, a boxed
example: lines of sentence or code length) is read like the text around it.

Only pages with a figure caption are looked at, so a paper without figures costs nothing.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Sequence

CAPTION = re.compile(r"^(?:Figure|FIGURE|Fig\.|FIG\.)\s*[0-9]{1,3}[a-z]?(?:[.:|]|\s)")
NEAR = 72.0  # points between a figure's drawings and its caption (axis titles may stand between them)
STACK = 24.0  # points between two panels of one figure, one above the other
MIN_SIDE = 20.0  # a drawing smaller than this either way is a rule, an underline or a glyph
MARGIN_EMS = 3.0  # the margin around the drawings where ticks and axis titles sit, in body-text sizes
LISTING_CHARS = 20  # the mean length of a framed figure's lines from which it is text, not a plot
SMALL = 0.5  # points under the body size that mark a margin line as a label

Box = tuple[float, float, float, float]  # x0, y0, x1, y1 in points


def _rects(page: Any) -> list[Box]:
    """The page's drawings (neighbouring paths clustered by PyMuPDF) and images, as boxes."""
    out = []
    try:
        clusters = page.cluster_drawings(x_tolerance=3, y_tolerance=3)
    except Exception:  # noqa: BLE001 - a damaged drawing list costs the figure, never the page
        clusters = []
    for r in clusters:
        if r.width >= MIN_SIDE and r.height >= MIN_SIDE:
            out.append((r.x0, r.y0, r.x1, r.y1))
    try:
        images = page.get_image_info()
    except Exception:  # noqa: BLE001
        images = []
    for info in images:
        x0, y0, x1, y1 = info["bbox"]
        if x1 - x0 >= MIN_SIDE and y1 - y0 >= MIN_SIDE:
            out.append((x0, y0, x1, y1))
    return out


def _across(a: Box, x0: float, x1: float) -> bool:
    return min(a[2], x1) - max(a[0], x0) > 0


@dataclass(frozen=True)
class Figure:
    """A captioned figure's drawings on a page, and its caption's first line."""

    box: Box  # the drawings' and images' bounding box
    caption: Box  # the caption's first line
    above: bool  # the figure stands above its caption

    def reach(self, margin: float) -> Box:
        """The box grown by `margin` on every side but the caption's, where it stops at the caption; as wide
        as the caption's line at least (category names on an axis can reach far out of the plot)."""
        x0, y0, x1, y1 = self.box
        left, right = min(x0 - margin, self.caption[0]), max(x1 + margin, self.caption[2])
        if self.above:
            return (left, y0 - margin, right, self.caption[1])
        return (left, self.caption[3], right, y1 + margin)


def figure_areas(rects: list[Box], captions: list[Box]) -> list[Figure]:
    """The figure next to each caption that has drawings there (none for a caption without them)."""
    out = []
    for cx0, cy0, cx1, cy1 in captions:
        above = [r for r in rects if cy0 - NEAR <= r[3] <= cy0 + 2 and _across(r, cx0, cx1)]
        below = [r for r in rects if cy1 - 2 <= r[1] <= cy1 + NEAR and _across(r, cx0, cx1)]
        group, upward = (above, True) if above else (below, False)
        if not group:
            continue
        taken = set(group)
        grew = True
        while grew:  # the other panels of the figure, stacked on the ones taken
            grew = False
            x0, x1 = min(r[0] for r in taken), max(r[2] for r in taken)
            top, bottom = min(r[1] for r in taken), max(r[3] for r in taken)
            for r in rects:
                if r in taken or not _across(r, x0, x1):
                    continue
                if (upward and top - STACK <= r[3] <= top + 2) or (not upward and bottom - 2 <= r[1] <= bottom + STACK):
                    taken.add(r)
                    grew = True
        box = (min(r[0] for r in taken), min(r[1] for r in taken), max(r[2] for r in taken), max(r[3] for r in taken))
        out.append(Figure(box, (cx0, cy0, cx1, cy1), upward))
    return out


def _inside(line: Any, box: Box) -> bool:
    x0, y0, x1, y1 = box
    w, h = max(line.x1 - line.x0, 0.1), max(line.y1 - line.y0, 0.1)
    iw = min(line.x1, x1) - max(line.x0, x0)
    ih = min(line.y1, y1) - max(line.y0, y0)
    return iw > 0 and ih > 0 and iw * ih >= 0.85 * w * h


def page_figures(page: Any, lines: Sequence[Any]) -> list[Figure]:
    """The captioned figures of a page whose lines (layout.Line) are given; the drawings are read only
    when some line opens a figure caption."""
    captions = [(ln.x0, ln.y0, ln.x1, ln.y1) for ln in lines if CAPTION.match(ln.text)]
    if not captions:
        return []
    rects = _rects(page)
    return figure_areas(rects, captions) if rects else []


def _framed_text(lines: Sequence[Any], box: Box, caption_blocks: set[int]) -> bool:
    """Whether the figure is text set in a frame (a listing, an algorithm, a boxed example), not a plot: the
    lines inside it are sentence or code length on average. Such a figure's words are read like the text."""
    inside = [len(ln.text) for ln in lines if ln.block not in caption_blocks and _inside(ln, box)]
    return bool(inside) and sum(inside) / len(inside) >= LISTING_CHARS


def figure_lines(lines: Sequence[Any], figures: Sequence[Figure], body: float) -> set[int]:
    """Indices of the lines that are the figures' own text (see the module's note); `body` is the body
    text's font size. A caption's block is never figure text."""
    if not figures:
        return set()
    margin = MARGIN_EMS * body
    caption_blocks = {ln.block for ln in lines if CAPTION.match(ln.text)}
    reaches = [(f.box, f.reach(margin)) for f in figures if not _framed_text(lines, f.box, caption_blocks)]
    hit = {i for i, ln in enumerate(lines) if ln.block not in caption_blocks
           and any(_inside(ln, box) or (ln.size < body - SMALL and _inside(ln, reach)) for box, reach in reaches)}
    # a block is figure text only as a whole: a paragraph's last line next to a figure stays with its paragraph
    by_block: dict[int, list[int]] = {}
    for i, ln in enumerate(lines):
        by_block.setdefault(ln.block, []).append(i)
    return {i for i in hit if all(j in hit for j in by_block[lines[i].block])}


def drop_figure_text(pages: Sequence[Any], body: float, protect: frozenset[int] = frozenset()) -> int:
    """Take the figures' own lines out of each page (layout.PageLines with its `figures`); lines whose id()
    is in `protect` (the title's) stay. How many lines went."""
    gone = 0
    for pg in pages:
        drop = {i for i in figure_lines(pg.lines, pg.figures, body) if id(pg.lines[i]) not in protect}
        if drop:
            pg.lines = [ln for i, ln in enumerate(pg.lines) if i not in drop]
            gone += len(drop)
    return gone
