"""Tables bounded by horizontal rules (booktabs, the common case in papers), read from the page's words.

The rules next to a caption are followed away from it for as long as the text between two of them
reads as table rows (cells set apart by wide gaps); the words between the first and last rule are
grouped into rows by height and into columns by the gaps the rows share. The rows above the first
full-width inner rule are the header; a group header over a partial rule (booktabs' cmidrule) names
every column under it; a line of words alone among rows of figures labels the rows below it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Sequence

CAPTION = re.compile(r"^(?:Table|TABLE|Tab\.)\s+([0-9]{1,2}|[IVX]{1,5})\s*(?::|[.|](?=\s))\s*(\S.*)$", re.S)
NEAR = 30.0  # points between a caption and its table's first rule (or find_tables box)
MIN_RULE = 40.0  # a horizontal rule at least this wide (points) can bound a table


@dataclass
class _Rule:
    y: float
    x0: float
    x1: float


def rules_of(drawings: list[dict[str, Any]]) -> list[_Rule]:
    """Horizontal rules at least MIN_RULE wide; dotted or dashed pieces on one height join up."""
    pieces: list[_Rule] = []
    for path in drawings:
        for item in path["items"]:
            if item[0] == "l" and abs(item[1].y - item[2].y) < 1:
                pieces.append(_Rule((item[1].y + item[2].y) / 2, min(item[1].x, item[2].x), max(item[1].x, item[2].x)))
            elif item[0] == "re" and item[1].height < 2 and item[1].width > 0.5:
                r = item[1]
                pieces.append(_Rule((r.y0 + r.y1) / 2, r.x0, r.x1))
    pieces.sort(key=lambda r: (round(r.y), r.x0))
    joined: list[_Rule] = []
    for r in pieces:
        last = joined[-1] if joined else None
        if last is not None and abs(last.y - r.y) < 1 and r.x0 - last.x1 < 2.5:
            last.x1 = max(last.x1, r.x1)
        else:
            joined.append(_Rule(r.y, r.x0, r.x1))
    return [r for r in joined if r.x1 - r.x0 >= MIN_RULE]


def overlaps(a0: float, a1: float, b0: float, b1: float) -> bool:
    return min(a1, b1) - max(a0, b0) > 0.3 * min(a1 - a0, b1 - b0)


def ruled_grid(box: Sequence[float], rules: list[_Rule], words: list[Any]) -> tuple[list[str], list[list[str]]] | None:
    x0, y0, x1, y1 = box
    column = [r for r in rules if overlaps(r.x0, r.x1, x0, x1)]
    below = sorted((r for r in column if r.y >= y1 - 1), key=lambda r: r.y)
    above = sorted((r for r in column if r.y <= y0 + 1), key=lambda r: -r.y)
    best: list[_Rule] = []
    best_gap = NEAR + 1
    for side, gap in ((below, below[0].y - y1 if below else NEAR + 1), (above, y0 - above[0].y if above else NEAR + 1)):
        if gap <= NEAR and gap < best_gap:
            chain = _chain(side, words)
            if len(chain) >= 2:
                best, best_gap = chain, gap
    if len(best) < 2:
        return None
    ys = sorted(r.y for r in best)
    left, right = min(r.x0 for r in best), max(r.x1 for r in best)
    inside = [w for w in words if left - 2 <= (w[0] + w[2]) / 2 <= right + 2 and ys[0] < (w[1] + w[3]) / 2 < ys[-1]]
    if not inside:
        return None
    return _grid(inside, best)


def _chain(side: list[_Rule], words: list[Any]) -> list[_Rule]:
    """The rules from the caption outwards for as long as the text between two rules reads as table rows."""
    chain = [side[0]]
    for rule in side[1:]:
        lo, hi = sorted((chain[-1].y, rule.y))
        left, right = min(chain[0].x0, rule.x0), max(chain[0].x1, rule.x1)
        between = [w for w in words if left - 2 <= (w[0] + w[2]) / 2 <= right + 2 and lo < (w[1] + w[3]) / 2 < hi]
        if between and not _rows_like(between):
            break
        if not between and hi - lo > 40:  # an empty gap this tall is not inside a table
            break
        chain.append(rule)
    return chain


def _bands(words: list[Any]) -> list[list[Any]]:
    """Words grouped into lines across the whole width: one band per row of the table."""
    bands: list[list[Any]] = []
    for w in sorted(words, key=lambda w: ((w[1] + w[3]) / 2, w[0])):
        mid, height = (w[1] + w[3]) / 2, w[3] - w[1]
        if bands:
            last = bands[-1]
            last_mid = sum((v[1] + v[3]) / 2 for v in last) / len(last)
            if abs(mid - last_mid) < 0.45 * max(height, 1.0):
                last.append(w)
                continue
        bands.append([w])
    return [sorted(b, key=lambda w: w[0]) for b in bands]


def _cells(band: list[Any]) -> list[tuple[float, float, str]]:
    """A band's words joined into cells wherever the gap is narrower than a wide space."""
    cells: list[list[Any]] = []
    for w in band:
        height = w[3] - w[1]
        if cells and w[0] - cells[-1][-1][2] < 0.42 * max(height, 1.0):
            cells[-1].append(w)
        else:
            cells.append([w])
    return [(c[0][0], c[-1][2], " ".join(w[4] for w in c)) for c in cells]


def _rows_like(words: list[Any]) -> bool:
    """Lines that read as table rows: a third of them split into cells, or all short (labels, list cells);
    never a caption (the next table's) nor prose."""
    bands = _bands(words)
    texts = [" ".join(w[4] for w in b) for b in bands]
    if any(CAPTION.match(t) for t in texts):
        return False
    multi = sum(len(_cells(b)) >= 2 for b in bands)
    return multi * 3 >= len(bands) or all(len(t.split()) <= 8 for t in texts)


def _grid(words: list[Any], rules: list[_Rule]) -> tuple[list[str], list[list[str]]] | None:
    rules = sorted(rules, key=lambda r: r.y)
    width = max(r.x1 for r in rules) - min(r.x0 for r in rules)
    bands = _bands(words)
    cells = [_cells(b) for b in bands]
    most = max(len(c) for c in cells)
    if most < 2:
        return None
    spans = _columns([c for c in cells if len(c) >= 0.6 * most])
    mids = [sum((w[1] + w[3]) / 2 for w in b) / len(b) for b in bands]
    # The header: the rows above the first inner rule (if it leaves body rows below), else the first row.
    inner = [r.y for r in rules[1:-1] if r.x1 - r.x0 >= 0.9 * width
             and any(m < r.y for m in mids) and any(m > r.y for m in mids)]
    above = sum(m < inner[0] for m in mids) if inner else 0
    n_head = above if 0 < above * 2 < len(mids) else 1
    partial = [r for r in rules if r.x1 - r.x0 < 0.9 * width]
    grid = [_place(_under_rules(row, partial, mids[i], mids[i + 1]) if i + 1 < n_head else row, spans)
            for i, row in enumerate(cells)]
    header = [" ".join(filter(None, (grid[r][c] for r in range(n_head)))) for c in range(len(spans))]
    # A body line of one cell across the columns (or alone right of the first) labels a group of rows;
    # so does a line of words alone, first column empty, among rows of figures ("BART, Multitask: ...").
    rows = range(n_head, len(cells))
    figures = sum(any(map(numeric, filter(None, grid[i]))) for i in rows) * 2 >= len(rows)
    body = [[" / ".join(c[2] for c in cells[i])] if _labels_group(cells[i], grid[i], len(spans), figures) else grid[i]
            for i in rows]
    return header, _join_wrapped(body)


def _labels_group(raw: list[tuple[float, float, str]], row: list[str], columns: int, figures: bool) -> bool:
    if columns < 2 or not any(row[1:]):
        return False
    return len(raw) == 1 or (figures and not row[0] and not any(numeric(c) for c in row if c))


def _under_rules(row: list[tuple[float, float, str]], partial: list[_Rule], mid: float, next_mid: float
                 ) -> list[tuple[float, float, str]]:
    """A group header over a partial rule (booktabs' cmidrule) spans the rule's columns, not just its own width."""
    out = []
    for a, b, text in row:
        rule = next((r for r in partial if mid < r.y < next_mid and r.x0 - 2 <= (a + b) / 2 <= r.x1 + 2), None)
        out.append((rule.x0, rule.x1, text) if rule else (a, b, text))
    return out


def _columns(rows: list[list[tuple[float, float, str]]]) -> list[tuple[float, float]]:
    """Column spans: the union of the well-filled rows' cell spans, split where no cell covers."""
    spans = sorted((c[0], c[1]) for row in rows for c in row)
    out: list[list[float]] = []
    for a, b in spans:
        if out and a <= out[-1][1] + 1:
            out[-1][1] = max(out[-1][1], b)
        else:
            out.append([a, b])
    return [(a, b) for a, b in out]


def _place(row: list[tuple[float, float, str]], spans: list[tuple[float, float]]) -> list[str]:
    """A row's cells in their columns; a cell across several columns (a group header) names each of them."""
    out = [""] * len(spans)
    for a, b, text in row:
        hit = [i for i, (s0, s1) in enumerate(spans) if min(b, s1) - max(a, s0) > 0]
        if not hit:
            hit = [min(range(len(spans)), key=lambda i: abs((spans[i][0] + spans[i][1]) / 2 - (a + b) / 2))]
        for i in hit:
            out[i] = f"{out[i]} {text}".strip()
    return out


def numeric(cell: str) -> bool:
    return bool(re.fullmatch(r"[-+±~<>≈(]*[\d.,]+[%)*†‡]*(?:\s*\(?[\d.,]+\)?)?", cell.strip()))


def _join_wrapped(rows: list[list[str]]) -> list[list[str]]:
    """A text row that goes on from the one above (first cell empty, or a cell above broken by a hyphen)
    joins it; rows of figures and group labels stand alone."""
    out: list[list[str]] = []
    for row in rows:
        prev = out[-1] if out else None
        filled = [c for c in row if c]
        wrapped = prev is not None and len(prev) == len(row) > 1 and filled and not any(map(numeric, filled)) \
            and (not row[0] or any(p.endswith("-") for p in prev if p))
        if not wrapped:
            out.append(list(row))
            continue
        for i, cell in enumerate(row):
            if cell:
                join = prev[i].endswith("-") and cell[:1].islower()
                prev[i] = prev[i][:-1] + cell if join else f"{prev[i]} {cell}".strip()
    return out
