"""Tables as evidence: each captioned table of a page becomes a chunk of readable rows.

Only pages whose text has a caption ("Table 3: ...", "TABLE II. ...") are looked at, so a
paper without tables costs nothing and one with tables costs one pass per caption page.
A caption's table is found two ways:

- rules (booktabs, the common case in papers): the horizontal rules next to the caption bound
  the table, read from its words (PyMuPDF `get_text("words")`) in `table_rules.py`;
- grids: where no rule is next to the caption but vertical lines or cell boxes are, PyMuPDF's
  `page.find_tables()` finds a table drawn with lines, and the one next to the caption is taken.

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
from paperdesk.core.text.metric_names import metric_line
from paperdesk.core.ingest.table_rules import CAPTION, NEAR, overlaps, ruled_grid, rules_of

SECTION = re.compile(r"^Table [0-9IVX]{1,5}$")
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
    rules = rules_of(drawings)
    words = page.get_text("words", textpage=textpage)
    found_grids: list[Any] | None = None
    out: list[Table] = []
    for block, match in captions[:MAX_TABLES_PER_PAGE]:
        label = f"Table {match.group(1)}"
        caption = _caption(block[4])
        grid = ruled_grid(block[:4], rules, words)
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
    """Chunks of each table's rows, each under the caption, about `chunk_words` words long at most.

    Under the caption, each chunk names the metrics the column names abbreviate (metric_names), so a
    question about "ROUGE-1" finds a table headed "R-1f1"."""
    chunks: list[NewChunk] = []
    for table in tables:
        lines = [piece for row in table.rows for piece in _pieces(render_row(table.header, row), chunk_words // 2)]
        metrics = metric_line(table.header)
        head = "\n".join(filter(None, [table.caption, metrics]))
        part: list[str] = []
        size = len(head.split())
        for line in lines:
            n = len(line.split())
            if part and size + n > chunk_words:
                chunks.append(NewChunk(table.page, table.page, table.label, "\n".join([head] + part)))
                head = "\n".join(filter(None, [_continued(table), metrics]))  # the rest under a short caption
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
        if not overlaps(tx0, tx1, x0, x1):
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
