"""Page layout: PyMuPDF lines with font facts, running headers, headings, paragraphs.

The pipeline is linear in the number of lines: `page_dict` + `page_lines`
once per page, then `strip_running_lines`, `body_font_size`, `build_vocab`
and `page_paragraphs` over the whole document.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field

import pymupdf

from paperdesk.core.ingest.arxiv_stamp import is_stamp
from paperdesk.core.ingest.chunking import KNOWN_HEADINGS, Para, heading_base, is_text_heading
from paperdesk.core.text.clean import CONTROLS

# No ligature/image preservation: MuPDF expands ligatures itself and skipping
# images makes "dict" extraction ~3x faster.
_FLAGS = pymupdf.TEXT_PRESERVE_WHITESPACE | pymupdf.TEXT_MEDIABOX_CLIP
_BOLD_FONT = re.compile(r"bold|black|heavy|semibold|demi|cmbx|\.b$|-b$", re.I)
# Ligatures and odd spaces become plain text; control characters (text_clean.CONTROLS: escape codes, C1
# glyph codes of symbol fonts) go, so no PDF can drive the terminal that shows its text.
_CLEAN = str.maketrans({
    **CONTROLS, "\r": " ", "\x0b": " ", "\x0c": " ",  # but the whitespace ones still part words
    "\ufb00": "ff", "\ufb01": "fi", "\ufb02": "fl", "\ufb03": "ffi", "\ufb04": "ffl",
    "\ufb05": "st", "\ufb06": "st", "\u00ad": None, "\ufffd": None, "\u00a0": " ",
    "\u2002": " ", "\u2003": " ", "\u2009": " ", "\u200b": None, "\u2010": "-", "\u2011": "-",
})
# TeX's T1 (Cork) font encoding puts the ligatures at 0x1B-0x1F; a PDF without a map to Unicode gives those
# codes, which would otherwise go with the control characters ("signi?cance" read as "signicance")
_CORK_LIGATURE = re.compile(r"(?<=[^\W\d_])[\x1b-\x1f]|[\x1b-\x1f](?=[^\W\d_])")
_CORK = {"\x1b": "ff", "\x1c": "fi", "\x1d": "fl", "\x1e": "ffi", "\x1f": "ffl"}
_PAGE_NUMBER = re.compile(r"^(page\s+)?(\d{1,4}|[ivxlc]{1,6})(\s+(of|/)\s+\d{1,4})?$", re.I)
_DIGITS = re.compile(r"\d+")
_CAPTION = re.compile(r"^(fig(ure)?|table|tab|algorithm|listing|eq(uation)?)\.?\s*[\dA-Z]", re.I)
_WORD = re.compile(r"[^\W\d_]+(?:-[^\W\d_]+)*")
_REAL_WORD = re.compile(r"[^\W\d_]{3}")
# Line-end "multi-" is usually a real compound even when the document never
# spells the word again; other line-end hyphens are mostly syllable breaks.
_COMPOUND_PREFIXES = frozenset(
    "anti co cross fine high large long low multi non off on open pre post real self semi short "
    "single small sub two three under well wide zero end user state task domain human".split()
)
_BAND = 0.1  # top/bottom share of the page where running headers and footers live


@dataclass(slots=True)
class Line:
    """One visual line: text plus the font facts heading detection needs."""

    text: str
    size: float  # font size of most of its characters
    bold: float  # share of its characters set in bold
    y0: float
    y1: float
    x0: float
    x1: float
    block: int  # index of its PyMuPDF block on the page
    spans: list[tuple[str, float]] | None = None  # (text, size), kept on page 1 only


@dataclass(slots=True)
class PageLines:
    number: int  # 1-based
    height: float
    lines: list[Line]
    stamp: str = ""  # arXiv's margin stamp ("arXiv:2302.07302v1 [cs.HC] 14 Feb 2023"), kept out of the lines
    figures: list = field(default_factory=list)  # figures.Figure of the page's captioned figures


def text_page(page: pymupdf.Page) -> pymupdf.TextPage:
    """The page's text, extracted once with ingest's flags (may raise on a broken page)."""
    return page.get_textpage(flags=_FLAGS)


def page_dict(page: pymupdf.Page, textpage: pymupdf.TextPage | None = None) -> dict:
    """PyMuPDF's "dict" text output for a page (may raise on a broken page)."""
    return page.get_text("dict", flags=_FLAGS, textpage=textpage)


def page_lines(data: dict, number: int, keep_spans: bool = False) -> PageLines:
    """A page's lines (same-baseline pieces of a block merged) with font facts."""
    lines: list[Line] = []
    stamp = ""
    bold_font: dict[str, bool] = {}
    for bno, block in enumerate(data["blocks"]):
        prev: Line | None = None
        for raw in block.get("lines", ()):
            bold = total = longest = 0
            size = 0.0
            parts = []
            spans = [] if keep_spans else None
            for span in raw["spans"]:
                t = span["text"]
                n = len(t)
                if not n:
                    continue
                parts.append(t)
                total += n
                if n > longest:  # the line's size is that of its longest span
                    longest, size = n, span["size"]
                font = span["font"]
                is_bold = bold_font.get(font)
                if is_bold is None:
                    is_bold = bold_font[font] = bool(_BOLD_FONT.search(font))
                if is_bold or span["flags"] & 16:
                    bold += n
                if spans is not None:
                    spans.append((plain_text(t), span["size"]))
            text = " ".join(plain_text("".join(parts)).split())
            if not text:
                continue
            if text[0] == "a" and is_stamp(text):
                stamp = stamp or text
                continue
            x0, y0, x1, y1 = raw["bbox"]
            # "1" and "INTRODUCTION" come as two lines on one baseline: merge them, but not
            # the far-apart halves of a running header ("CHI '23 ..." and "Chang et al.").
            if prev is not None and abs(y1 - prev.y1) < 0.5 * (y1 - y0) and 0 <= x0 - prev.x1 < 3 * size:
                share = len(text) / (len(text) + len(prev.text))
                prev.bold = prev.bold * (1 - share) + (bold / total) * share
                prev.text += " " + text
                prev.x1 = x1
                if prev.spans is not None and spans is not None:
                    prev.spans.extend([(" ", 0.0)] + spans)  # size 0: a name boundary for author splitting
                continue
            prev = Line(text, size, bold / total, y0, y1, x0, x1, bno, spans)
            lines.append(prev)
    return PageLines(number, data["height"], lines, stamp)


def _key(text: str) -> str:
    return _DIGITS.sub("#", text.lower())


def strip_running_lines(pages: list[PageLines], title: str = "", protect: frozenset[int] = frozenset()) -> None:
    """Drop running headers/footers (lines repeating in the page margins) and page numbers.

    Lines whose id() is in `protect` (the title on page 1) always stay.
    """
    need = max(2, round(0.2 * len(pages)))
    seen: Counter[str] = Counter()
    for pg in pages:
        top, bottom = _BAND * pg.height, (1 - _BAND) * pg.height
        seen.update({_key(ln.text) for ln in pg.lines if ln.y1 <= top or ln.y0 >= bottom})
    running = {k for k, n in seen.items() if n >= need}
    numbered = _page_numbers(pages, need)
    title_key = _key(title)
    for pg in pages:
        top, bottom = _BAND * pg.height, (1 - _BAND) * pg.height
        keep = []
        for i, ln in enumerate(pg.lines):
            margin = ln.y1 <= top or ln.y0 >= bottom
            if id(ln) in numbered and id(ln) not in protect:
                continue
            if id(ln) in protect or not (margin or pg.number == 1):
                keep.append(ln)
                continue
            key = _key(ln.text)
            if key in running:  # on page 1 anywhere: the ACM venue line in the copyright box
                continue
            if margin and pg.number > 1 and title_key and len(key) > 15 and title_key.startswith(key.rstrip(". …")):
                continue  # the paper's own title as a running header
            if margin and _PAGE_NUMBER.match(ln.text) and not _starts_heading(pg.lines, i):
                continue
            keep.append(ln)
        pg.lines = keep


def _page_numbers(pages: list[PageLines], need: int) -> set[int]:
    """id()s of page-number lines set above the margin bands (a wide bottom margin puts them there): a bare
    number that is a page's lowest or highest line and runs with the page count (number minus page index the
    same on at least `need` pages)."""
    found: dict[int, list[Line]] = {}
    for pg in pages:
        if not pg.lines:
            continue
        ends = {id(ln): ln for ln in (min(pg.lines, key=lambda x: x.y0), max(pg.lines, key=lambda x: x.y1))}
        for ln in ends.values():
            if ln.text.isdigit() and len(ln.text) <= 4:
                found.setdefault(int(ln.text) - pg.number, []).append(ln)
    return {id(ln) for lines in found.values() if len(lines) >= need for ln in lines}


def _starts_heading(lines: list[Line], i: int) -> bool:
    # A bare "4" in the margin can be a heading number whose title sits on the next line.
    nxt = lines[i + 1] if i + 1 < len(lines) else None
    return nxt is not None and nxt.block == lines[i].block and abs(nxt.y0 - lines[i].y0) < 2


def body_font_size(pages: list[PageLines]) -> float:
    """The font size carrying most characters: the body text."""
    chars: Counter[float] = Counter()
    for pg in pages:
        for ln in pg.lines:
            chars[round(ln.size * 2) / 2] += len(ln.text)
    return chars.most_common(1)[0][0] if chars else 10.0


def build_vocab(pages: list[PageLines]) -> set[str]:
    """Lower-cased words (hyphenated compounds whole) that the document spells within lines."""
    return set(_WORD.findall("\n".join(ln.text for pg in pages for ln in pg.lines).lower()))


def join_hyphenated(left: str, right: str, vocab: set[str]) -> str:
    """Join `left` (ending in "-") and `right` split at a line break, keeping real hyphens."""
    stem = left[:-1]
    core = _WORD.match(right)
    rword = core.group(0).lower() if core else right.lower()
    head = _WORD.findall(stem)
    lword = head[-1].lower() if head else stem.lower()
    joined, hyphened = lword + rword, lword + "-" + rword
    if right[:1].isupper():  # "BERT-" + "Based" stays; "Cite-" + "See" joins if the text says CiteSee
        return stem + right if joined in vocab and hyphened not in vocab else left + right
    if "-" in lword or (hyphened in vocab and joined not in vocab):
        return left + right  # "state-of-the-" + "art", or a compound the text spells with "-"
    if joined in vocab or lword not in _COMPOUND_PREFIXES:
        return stem + right
    return left + right


def plain_text(text: str) -> str:
    """A span's text as plain Unicode: ligatures spelled out, control characters gone."""
    if _CORK_LIGATURE.search(text):
        text = _CORK_LIGATURE.sub(lambda m: _CORK[m.group(0)], text)
    return text.translate(_CLEAN)


def _heading_kind(ln: Line, body: float) -> bool:
    """Whether a line looks like a section heading by its text and font."""
    text = ln.text
    words = text.count(" ") + 1
    # Headings are never set smaller than the body; smaller bold text is a figure or table label.
    if words > 16 or ln.size < body - 0.5:
        return False
    bold = ln.bold >= 0.9
    bigger = ln.size >= body + 0.8
    caps = text.upper() == text
    if not (bold or bigger or caps) or _CAPTION.match(text) or not _REAL_WORD.search(text):
        return False
    if is_text_heading(text):  # numbered ("3.2 Method") or a well-known name ("References")
        return True
    if text[-1] in ".,;:" or not text[0].isupper() or words > 10:
        return False
    return ln.size >= body + 1.5 or (bold and (bigger or caps) and words <= 8)


def front_matter_end(lines: list[Line], body: float, title_lines: int) -> int:
    """Index of the first heading on page 1 (e.g. Abstract); lines before it are title/authors."""
    for i, ln in enumerate(lines[title_lines:], start=title_lines):
        if is_text_heading(ln.text) and _heading_kind(ln, body):
            return i
        if _runin_abstract(ln.text) or abstract_line(ln.text):
            return i
    return title_lines


def _known_plain(ln: Line, body: float) -> bool:
    """A well-known section name ("1. Introduction", "References") on a line of its own block, set like the
    body: some journals set headings in plain type, apart from the text only by the space around them."""
    text = ln.text.strip()
    if not text[:1].isupper() and not text[:1].isdigit() or text.endswith((",", ";")):
        return False
    if text.endswith(".") and not text[:1].isdigit():  # "Results." ending a wrapped sentence
        return False
    return heading_base(text) in KNOWN_HEADINGS and ln.size >= body - 0.5


def _small_capitals(ln: Line, body: float) -> bool:
    """A short line in bold capitals, alone in its block, up to 1.5 pt under the body's size: some journals
    set their section headings so ("RESULTS")."""
    text = ln.text.strip()
    return (ln.bold >= 0.9 and text.upper() == text and body - 1.5 <= ln.size and len(text.split()) <= 8
            and bool(_REAL_WORD.search(text)) and not _CAPTION.match(text) and text[-1:] not in ".,;:")


def abstract_line(text: str) -> bool:
    """A line that is the abstract's heading alone ("Abstract", "ABSTRACT", "Summary:"), whatever its font:
    journals often set it as small as the abstract itself, and not bold."""
    return text.strip(" .:—–-").lower() in ("abstract", "summary")


def _runin_abstract(text: str) -> bool:
    # "Abstract—We propose ..." but not a sentence starting "abstract. She ..."
    return text[:8] in ("Abstract", "ABSTRACT") and len(text) > 12 and text[8] in "—-.:–" and text[9:].lstrip()[:1].isupper()


def page_paragraphs(pg: PageLines, body: float, vocab: set[str], skip: int = 0,
                    front: str | None = None) -> list[Para]:
    """Group a page's lines into paragraphs and headings; the first `skip` lines are front matter."""
    paras: list[Para] = []
    if skip:
        paras.append(Para(pg.number, " ".join(ln.text for ln in pg.lines[:skip]), label=front))
    opens_body = bool(skip and front)  # what follows the front matter is the body, whatever heading it lacks
    cur: list[str] = []
    cur_block = -1
    head: Line | None = None  # the previous line, when it was (part of) a heading

    def flush() -> None:
        nonlocal opens_body
        if cur:
            # the first paragraph after the front matter opens an unlabelled section; a paper without headings
            # (a letter) would otherwise be front matter to its end
            paras.append(Para(pg.number, " ".join(cur), label="" if opens_body else None))
            opens_body = False
            cur.clear()

    per_block = Counter(ln.block for ln in pg.lines)
    for ln in pg.lines[skip:]:
        text = ln.text
        if (head is not None and ln.block == head.block and abs(ln.size - head.size) < 0.3
                and abs(ln.bold - head.bold) < 0.2 and (ln.bold >= 0.9 or ln.size >= body + 0.8)
                and ln.y0 - head.y1 < ln.size and len(paras[-1].text) + len(text) < 120 and not is_text_heading(text)):
            paras[-1].text += " " + text  # a heading wrapped over two lines
            head = ln
            continue
        if pg.number <= 2 and _runin_abstract(text):
            flush()  # IEEE style "Abstract—We propose ..."
            paras.append(Para(pg.number, "Abstract", heading=True))
            opens_body = False
            text = text[9:].strip()
        elif (_heading_kind(ln, body) or (pg.number <= 2 and abstract_line(text))
              or (per_block[ln.block] == 1 and (_known_plain(ln, body) or _small_capitals(ln, body)))):
            flush()
            paras.append(Para(pg.number, text, heading=True))
            opens_body = False
            head, cur_block = ln, ln.block
            continue
        head = None
        if ln.block != cur_block and cur and (
            cur[-1][-1:] in ".?!:" or _CAPTION.match(cur[0]) or not (cur[-1].endswith("-") or text[:1].islower())
        ):
            flush()  # a new block starts a new paragraph unless the sentence visibly goes on
        cur_block = ln.block
        if cur and cur[-1].endswith("-") and cur[-1][-2:-1].isalpha() and text[:1].isalnum():
            first, _, rest = text.partition(" ")
            cur[-1] = join_hyphenated(cur[-1], first, vocab)
            if rest:
                cur.append(rest)
        elif text:
            cur.append(text)
    flush()
    if paras and not paras[0].heading and paras[0].label is None and paras[0].text[:1].islower():
        paras[0].continues = True
    return paras
