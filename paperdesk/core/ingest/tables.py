"""Tables as evidence: each captioned table of a page becomes a chunk of readable rows.

Only pages whose text has a caption ("Table 3: ...", "TABLE II. ...") are looked at, so a
paper without tables costs nothing and one with tables costs one pass per caption page.
A caption's table is found two ways:

- rules (booktabs, the common case in papers): the horizontal rules next to the caption,
  followed away from it for as long as the text between them reads as table rows (cells
  set apart by wide gaps), bound the table; its words (PyMuPDF `get_text("words")`) are
  grouped into rows by height and into columns by the gaps the rows share;
- grids: where no rule is next to the caption, PyMuPDF's `page.find_tables()` finds a
  table drawn with lines, and the one next to the caption is taken.

A table whose cells read as prose or word fragments (find_tables on a figure or on
highlighted text) is skipped. Rows are rendered "header: value; header: value", under the
caption, in chunks of about the text chunks' size, so search, answers and research can
cite a table's figures with its page.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Sequence

from paperdesk.core.db.store import NewChunk

CAPTION = re.compile(r"^(?:Table|TABLE|Tab\.)\s+([0-9]{1,2}|[IVX]{1,5})\s*(?::|[.|](?=\s))\s*(\S.*)$", re.S)
SECTION = re.compile(r"^Table [0-9IVX]{1,5}$")
NEAR = 30.0  # points between a caption and its table's first rule (or find_tables box)
MIN_RULE = 40.0  # a horizontal rule at least this wide (points) can bound a table
MAX_CAPTION_WORDS = 60
MAX_CELL_WORDS = 25  # a longer cell is prose: not a table
MAX_TABLES_PER_PAGE = 4


@dataclass
class Table:
    """One table found on a page: its caption and rows of cells under their column names."""

    page: int
    label: str  # "Table 3"
    caption: str  # "Table 3: Performance of baseline models ..."
    header: list[str]
    rows: list[list[str]]


def is_table_section(section: str) -> bool:
    """Whether a chunk's section names a table ("Table 3"): evidence, not a section of the paper's prose."""
    return bool(SECTION.match(section or ""))


def may_hold_table(lines: Sequence[str]) -> bool:
    """Whether a page's text lines hold a table caption: a free check before `page_tables` reads the page."""
    return any(CAPTION.match(line.strip()) for line in lines)


def page_tables(page: Any, page_no: int, textpage: Any = None) -> list[Table]:
    """The captioned tables PyMuPDF's page holds; [] when it has no caption or no readable table.
    `textpage`: the page's text already extracted (ingest's), else it is extracted here once."""
    textpage = textpage or page.get_textpage()
    blocks = [b for b in page.get_text("blocks", textpage=textpage) if b[6] == 0]
    captions = [(b, m) for b in blocks if (m := CAPTION.match(b[4].strip()))]
    if not captions:
        return []
    drawings = page.get_drawings()
    rules = _rules(drawings)
    words = page.get_text("words", textpage=textpage)
    found_grids: list[Any] | None = None
    out: list[Table] = []
    for block, match in captions[:MAX_TABLES_PER_PAGE]:
        label = f"Table {match.group(1)}"
        caption = _caption(block[4])
        grid = _ruled_grid(block[:4], rules, words)
        if grid is None and _has_grid_lines(drawings, block[:4]):
            if found_grids is None:
                found_grids = _find_tables(page)
            grid = _near_grid(block[:4], found_grids, {w[4] for w in words})
        if grid is None:
            continue
        header, rows = grid
        if rows and _readable(header, rows):
            out.append(Table(page_no, label, caption, header, rows))
    return out


def table_chunks(tables: Sequence[Table], chunk_words: int) -> list[NewChunk]:
    """Chunks of each table's rows, each under the caption, about `chunk_words` words long at most."""
    chunks: list[NewChunk] = []
    for table in tables:
        lines = [piece for row in table.rows for piece in _pieces(render_row(table.header, row), chunk_words // 2)]
        head = table.caption
        part: list[str] = []
        size = len(head.split())
        for line in lines:
            n = len(line.split())
            if part and size + n > chunk_words:
                chunks.append(NewChunk(table.page, table.page, table.label, "\n".join([head] + part)))
                head = _continued(table)  # the rest under a short caption: the words go to the rows
                part, size = [], len(head.split())
            part.append(line)
            size += n
        if part:
            chunks.append(NewChunk(table.page, table.page, table.label, "\n".join([head] + part)))
    return chunks


def _pieces(line: str, most: int) -> list[str]:
    """A row longer than `most` words (a very wide table) in pieces of at most that many."""
    words = line.split()
    return [" ".join(words[i:i + most]) for i in range(0, len(words), max(most, 1))]


def render_row(header: Sequence[str], row: Sequence[str]) -> str:
    """'name: value; name: value.' for a row's filled cells (a cell without a column name stands alone)."""
    if len(row) == 1:
        return f"{row[0]}:" if row[0] else ""
    parts = []
    for i, cell in enumerate(row):
        if not cell:
            continue
        name = header[i] if i < len(header) else ""
        parts.append(f"{name}: {cell}" if name and name != cell else cell)
    return "; ".join(parts) + "." if parts else ""


# -- captions ----------------------------------------------------------------------------------


def _caption(text: str) -> str:
    words = _dehyphen(text).split()
    caption = " ".join(words[:MAX_CAPTION_WORDS])
    return caption if len(words) <= MAX_CAPTION_WORDS else caption + " ..."


def _continued(table: Table) -> str:
    """'Table 2 (continued): <the caption's first sentence, at most 20 words>'."""
    rest = table.caption[len(table.label):].lstrip(" :.|")
    first = re.split(r"(?<=[.!?])\s", rest, maxsplit=1)[0].split()
    return f"{table.label} (continued): " + " ".join(first[:20]) + (" ..." if len(first) > 20 else "")


def _dehyphen(text: str) -> str:
    return re.sub(r"(\w)-\n(\w)", r"\1\2", text)


# -- rules and the table they bound ------------------------------------------------------------


@dataclass
class _Rule:
    y: float
    x0: float
    x1: float


def _rules(drawings: list[dict[str, Any]]) -> list[_Rule]:
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


def _overlaps(a0: float, a1: float, b0: float, b1: float) -> bool:
    return min(a1, b1) - max(a0, b0) > 0.3 * min(a1 - a0, b1 - b0)


def _ruled_grid(box: Sequence[float], rules: list[_Rule], words: list[Any]) -> tuple[list[str], list[list[str]]] | None:
    x0, y0, x1, y1 = box
    column = [r for r in rules if _overlaps(r.x0, r.x1, x0, x1)]
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
    figures = sum(any(map(_numeric, filter(None, grid[i]))) for i in rows) * 2 >= len(rows)
    body = [[" / ".join(c[2] for c in cells[i])] if _labels_group(cells[i], grid[i], len(spans), figures) else grid[i]
            for i in rows]
    return header, _join_wrapped(body)


def _labels_group(raw: list[tuple[float, float, str]], row: list[str], columns: int, figures: bool) -> bool:
    if columns < 2 or not any(row[1:]):
        return False
    return len(raw) == 1 or (figures and not row[0] and not any(_numeric(c) for c in row if c))


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


def _numeric(cell: str) -> bool:
    return bool(re.fullmatch(r"[-+±~<>≈(]*[\d.,]+[%)*†‡]*(?:\s*\(?[\d.,]+\)?)?", cell.strip()))


def _join_wrapped(rows: list[list[str]]) -> list[list[str]]:
    """A text row that goes on from the one above (first cell empty, or a cell above broken by a hyphen)
    joins it; rows of figures and group labels stand alone."""
    out: list[list[str]] = []
    for row in rows:
        prev = out[-1] if out else None
        filled = [c for c in row if c]
        wrapped = prev is not None and len(prev) == len(row) > 1 and filled and not any(map(_numeric, filled)) \
            and (not row[0] or any(p.endswith("-") for p in prev if p))
        if not wrapped:
            out.append(list(row))
            continue
        for i, cell in enumerate(row):
            if cell:
                join = prev[i].endswith("-") and cell[:1].islower()
                prev[i] = prev[i][:-1] + cell if join else f"{prev[i]} {cell}".strip()
    return out


# -- grids drawn with lines: PyMuPDF's find_tables ---------------------------------------------


def _has_grid_lines(drawings: list[dict[str, Any]], box: Sequence[float]) -> bool:
    """Vertical lines (or cell boxes) next to the caption's column: a grid find_tables can read
    (it costs ~0.3 s a page, so it runs only then)."""
    x0, _, x1, _ = box
    count = 0
    for path in drawings:
        for item in path["items"]:
            if item[0] == "l" and abs(item[1].x - item[2].x) < 1 and abs(item[1].y - item[2].y) > 6:
                count += x0 - 20 <= item[1].x <= x1 + 20
            elif item[0] == "re" and item[1].width < 2 and item[1].height > 6:
                count += x0 - 20 <= item[1].x0 <= x1 + 20
            elif item[0] == "re" and item[1].width > 6 and item[1].height > 6 and not path.get("fill"):
                count += x0 - 20 <= item[1].x0 <= x1 + 20  # a cell drawn as a box
    return count >= 3


def _find_tables(page: Any) -> list[Any]:
    import pymupdf

    getattr(pymupdf, "no_recommend_layout", lambda: None)()  # else it prints an advert on stdout (a TUI's screen)
    try:
        return list(page.find_tables().tables)
    except Exception:  # noqa: BLE001 - a table finder failure costs the tables of one page, never the ingest
        return []


def _near_grid(box: Sequence[float], tables: list[Any], page_words: set[str]
               ) -> tuple[list[str], list[list[str]]] | None:
    """The find_tables table next to the caption, when its cells hold the page's words (not fragments)."""
    x0, y0, x1, y1 = box
    for table in tables:
        tx0, ty0, tx1, ty1 = table.bbox
        if not _overlaps(tx0, tx1, x0, x1):
            continue
        if -2 <= ty0 - y1 <= NEAR or -2 <= y0 - ty1 <= NEAR:
            try:
                rows = [[_dehyphen(c or "").replace("\n", " ").strip() for c in r] for r in table.extract()]
            except Exception:  # noqa: BLE001
                continue
            tokens = [t for r in rows for c in r for t in c.split()]
            if len(rows) >= 2 and sum(t in page_words for t in tokens) >= 0.9 * len(tokens):
                return rows[0], rows[1:]
    return None


def _readable(header: list[str], rows: list[list[str]]) -> bool:
    """Cells that read as a table: few empty, none a paragraph, not mostly word fragments."""
    cells = [c for r in rows for c in r]
    filled = [c for c in cells if c]
    if len(rows) < 1 or len(header) < 2 or len(filled) * 2 < len(cells):
        return False
    if any(len(c.split()) > MAX_CELL_WORDS for c in filled + header):
        return False
    return True
