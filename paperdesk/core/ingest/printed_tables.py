"""Tables printed as console output (a fixed-width font), read as rows of named cells.

Software papers and package vignettes show their results as the console prints them:

           prior size post>0 ratio
    Comp.1 0.494  100    145 0.690
    Comp.2 0.506  100    141 0.709

Extracted as running text this becomes "prior size post>0 ratio Comp.1 0.494 100 145 0.690 Comp.2 ...",
where no reader, person or model, can tell which figure belongs to which column. The glyph positions
still say it: in a fixed-width font a line's characters sit on a grid, and a console right-aligns each
column of figures under its name. So the lines of a page set in such a font are put back on that grid,
and a header line followed by rows that end in the same number of figures, aligned on the same columns,
is read as a table. Each row becomes one line in the form the captioned tables use ("Comp.1; prior:
0.494; size: 100; post>0: 145; ratio: 0.690."), so a figure keeps its row and column wherever the
text is cut. Anything that does not line up is left as it was.
"""

from __future__ import annotations

import re
import statistics
from dataclasses import dataclass, replace
from typing import Sequence

from paperdesk.core.ingest.layout import Line
from paperdesk.core.ingest.tables import render_row

# A printed figure: a number (signs, thousands commas, decimals, exponent, percent, a "<" or ">" bound as in
# "<2e-16"), or the values a console prints for missing and logical cells.
_FIGURE = re.compile(r"(?:[<>] ?)?[-+]?(?:\d[\d,]*(?:\.\d*)?|\.\d+)(?:[eE][-+]?\d+)?%?|NA|NaN|-?Inf|TRUE|FALSE")
_MARKS = re.compile(r"\*{1,3}|\.|'")  # significance marks printed after the last figure, dropped
_OUTPUT_MARK = re.compile(r"^##(?=\s|$)")  # knitr's mark on printed output
_PROMPT = re.compile(r"^(?:R>|>>>|>|\$|\+|In \[\d*\]:)(?=\s)")  # a line typed at a prompt: code, not a header
MAX_LABEL = 60  # characters: a longer "label" is a sentence, not a row name
ALIGN = 2  # characters a column's name may end off its figures' right edge (the grid is read from positions)


@dataclass
class _Row:
    """One visual line of a run of fixed-width lines: its text on the character grid and its pieces."""

    text: str
    lines: list[Line]


def rewrite(lines: Sequence[Line]) -> list[Line]:
    """`lines` (a page's, in reading order) with each printed table's header dropped and each of its rows
    one line of named cells; every other line as it was."""
    out: list[Line] = []
    run: list[Line] = []
    for line in lines:
        if line.fixed:
            run.append(line)
            continue
        out += _tables_in(run)
        run = []
        out.append(line)
    return out + _tables_in(run)


def _tables_in(run: list[Line]) -> list[Line]:
    """A run of consecutive fixed-width lines with its tables rewritten."""
    if len(run) < 2:
        return list(run)
    rows = _grid(run)
    replaced: dict[int, str | None] = {}  # id(line) -> its new text, or None for a line that goes
    i = 0
    while i < len(rows) - 1:
        found = _table_at(rows, i)
        if found is None:
            i += 1
            continue
        end, rendered = found
        for line in rows[i].lines:
            replaced[id(line)] = None
        for row, text in zip(rows[i + 1:end], rendered):
            replaced[id(row.lines[0])] = text
            for line in row.lines[1:]:
                replaced[id(line)] = None
        i = end
    out = []
    for line in run:
        if id(line) not in replaced:
            out.append(line)
        elif replaced[id(line)] is not None:
            out.append(replace(line, text=replaced[id(line)], spans=None, fixed=""))
    return out


def _grid(run: list[Line]) -> list[_Row]:
    """The run's visual lines (pieces on one baseline together, top to bottom) as text on the character grid,
    the left edge of the run at column 0 and knitr's "##" prefix taken off."""
    widths = [(ln.x1 - ln.x0) / len(ln.fixed) for ln in run if len(ln.fixed.strip()) >= 3]
    cell = statistics.median(widths) if widths else 0.0
    if cell <= 0:
        return [_Row(ln.fixed, [ln]) for ln in run]
    left = min(ln.x0 for ln in run)
    groups: list[list[Line]] = []
    for line in sorted(run, key=lambda ln: (ln.y1, ln.x0)):
        if groups and abs(groups[-1][0].y1 - line.y1) < 0.5 * max(line.size, 1.0):
            groups[-1].append(line)
        else:
            groups.append([line])
    rows = []
    for group in groups:
        text = ""
        for line in sorted(group, key=lambda ln: ln.x0):
            column = round((line.x0 - left) / cell)
            text = text.ljust(column) if len(text) < column else (text + " " if text else text)
            text += line.fixed.rstrip()
        rows.append(_Row(text, group))
    for r in rows:  # knitr's "##" before output goes; the mark is as wide on every line, so the columns stay
        stripped = r.text.lstrip()
        if _OUTPUT_MARK.match(stripped):
            r.text = " " * (len(r.text) - len(stripped)) + "  " + stripped[2:]
    return rows


def _tokens(text: str) -> list[tuple[int, int, str]]:
    """The text's words with their start and end columns; a bound printed apart ("< 2.2e-16") is one."""
    return [(m.start(), m.end(), " ".join(m.group().split())) for m in re.finditer(r"[<>]\s(?=[\d.])\S+|\S+", text)]


def _figure(token: str) -> bool:
    return bool(_FIGURE.fullmatch(token))


def _table_at(rows: list[_Row], i: int) -> tuple[int, list[str]] | None:
    """(the index after its last row, each row rendered) when rows[i] heads a printed table, else None."""
    header = rows[i].text
    head_tokens = _tokens(header)
    if (not head_tokens or any(_figure(t) for _, _, t in head_tokens) or _PROMPT.match(header.lstrip())
            or header.rstrip().endswith(":")):
        return None  # a header names its columns: a line with figures is a row, one after a prompt is code,
        # and one ending in a colon titles what follows
    bodies: list[list[tuple[int, int, str]]] = []
    j = i + 1
    while j < len(rows):
        tokens = _tokens(rows[j].text)
        while tokens and _MARKS.fullmatch(tokens[-1][2]):  # the p-value beside them says as much
            tokens = tokens[:-1]
        if len(tokens) < 2 or not _figure(tokens[-1][2]):
            break
        bodies.append(tokens)
        j += 1
    # the longest run of rows that lines up (output may go on below a table); cut short, it needs two rows to agree
    for n in range(len(bodies), 0 if len(bodies) == 1 else 1, -1):
        found = _render(header, bodies[:n])
        if found is not None:
            return i + 1 + n, found
    return None


def _render(header: str, bodies: list[list[tuple[int, int, str]]]) -> list[str] | None:
    """Each row of a table under `header` as one line of named cells; None when they do not make a table."""
    for width in range(min(_trailing(t) for t in bodies), 0, -1):
        cut = _columns(header, bodies, width)
        if cut is None:
            continue
        names, label_name = cut
        if width == 1 and len(bodies) < 2:
            return None  # one figure under one name is a sentence as often as a table
        return [render_row([label_name, *names],
                           [" ".join(t for _, _, t in tokens[:-width]), *(t for _, _, t in tokens[-width:])])
                for tokens in bodies]
    return None


def _trailing(tokens: list[tuple[int, int, str]]) -> int:
    """How many tokens at the end of a row are figures."""
    n = 0
    while n < len(tokens) and _figure(tokens[-1 - n][2]):
        n += 1
    return n


def _columns(header: str, bodies: list[list[tuple[int, int, str]]], width: int
             ) -> tuple[list[str], str] | None:
    """The names of the last `width` columns, read off the header, and the name over the row labels ("" when
    none); None when the rows' figures do not line up in columns or the header's words do not end over them.

    A console right-aligns a column's figures and its name; a name may be several words ("Std. Error"), and
    names may be one space apart ("prior size post>0"), so the header's words are grouped by where they end:
    each column's name is the words up to the one ending over its figures' right edge (within ALIGN)."""
    ends = []
    for c in range(width):
        edges = [tokens[len(tokens) - width + c][1] for tokens in bodies]
        middle = statistics.median(edges)
        if any(abs(e - middle) > 1 for e in edges):
            return None  # a column's figures are right-aligned on one edge
        ends.append(max(edges))
    labels = [" ".join(t for _, _, t in tokens[:-width]) for tokens in bodies]
    if any(len(label) > MAX_LABEL or sum(map(_figure, label.split())) > 1 for label in labels):
        return None  # figures in a row's name: a column the grid did not find
    label_end = max((tokens[-width - 1][1] for tokens in bodies if len(tokens) > width), default=0)
    if label_end >= min(tokens[-width][0] for tokens in bodies):
        return None
    words = _tokens(header)
    k = 0
    while k < len(words) and words[k][1] <= label_end and abs(words[k][1] - ends[0]) > ALIGN:
        k += 1
    label_name = " ".join(t for _, _, t in words[:k])
    names = []
    for c, end in enumerate(ends):
        first = k
        while k < len(words) and words[k][1] < end - ALIGN:
            k += 1
        if k == len(words) or words[k][1] > end + ALIGN:
            return None  # no header word ends over this column
        k += 1
        if c == width - 1:
            k = len(words)  # the last name runs to the header's end
        names.append(" ".join(t for _, _, t in words[first:k]))
    return names, label_name
