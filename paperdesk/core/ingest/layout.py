"""Page layout: PyMuPDF lines with font facts, running headers, headings, paragraphs.

The pipeline is linear in the number of lines: `extract_page` once per page,
then `strip_running_lines`, `body_font_size`, `build_vocab` and
`page_paragraphs` over the whole document.
"""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from dataclasses import dataclass

import pymupdf

from paperdesk.core.ingest.chunking import Para, heading_label, is_text_heading

# No ligature/image preservation: MuPDF expands ligatures itself and skipping
# images makes "dict" extraction ~3x faster.
_FLAGS = pymupdf.TEXT_PRESERVE_WHITESPACE | pymupdf.TEXT_MEDIABOX_CLIP
_BOLD_FONT = re.compile(r"bold|black|heavy|semibold|demi|cmbx|\.b$|-b$", re.I)
_CLEAN = str.maketrans({
    "\ufb00": "ff", "\ufb01": "fi", "\ufb02": "fl", "\ufb03": "ffi", "\ufb04": "ffl",
    "\ufb05": "st", "\ufb06": "st", "\u00ad": None, "\ufffd": None, "\u00a0": " ",
    "\u2002": " ", "\u2003": " ", "\u2009": " ", "\u200b": None, "\u2010": "-", "\u2011": "-",
})
_ARXIV_STAMP = re.compile(r"^arXiv:\d{4}\.\d{4,5}(v\d+)?\s+\[[\w.\-]+\]\s+\d{1,2}\s+\w{3}\s+\d{4}$")
_PAGE_NUMBER = re.compile(r"^(page\s+)?(\d{1,4}|[ivxlc]{1,6})(\s+(of|/)\s+\d{1,4})?$", re.I)
_DIGITS = re.compile(r"\d+")
_CAPTION = re.compile(r"^(fig(ure)?|table|tab|algorithm|listing|eq(uation)?)\.?\s*[\dA-Z]", re.I)
_WORD = re.compile(r"[^\W\d_]+(?:-[^\W\d_]+)*")
_LETTERS = re.compile(r"[^\W\d_]")
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
    block: int  # index of its PyMuPDF block on the page
    spans: list[tuple[str, float]] | None = None  # (text, size), kept on page 1 only


@dataclass(slots=True)
class PageLines:
    number: int  # 1-based
    height: float
    lines: list[Line]


def _is_bold(flags: int, font: str, cache: dict[str, bool]) -> bool:
    if flags & 16:
        return True
    hit = cache.get(font)
    if hit is None:
        hit = cache[font] = bool(_BOLD_FONT.search(font))
    return hit


def extract_page(page: pymupdf.Page, number: int, keep_spans: bool = False) -> PageLines:
    """Read one page's lines (same-baseline pieces of a block merged) with font facts."""
    data = page.get_text("dict", flags=_FLAGS)
    lines: list[Line] = []
    font_cache: dict[str, bool] = {}
    for bno, block in enumerate(data["blocks"]):
        prev: Line | None = None
        for raw in block.get("lines", ()):
            sizes: dict[float, int] = defaultdict(int)
            bold = total = 0
            parts = []
            spans = [] if keep_spans else None
            for span in raw["spans"]:
                t = span["text"]
                if not t:
                    continue
                parts.append(t)
                n = len(t)
                sizes[span["size"]] += n
                total += n
                if _is_bold(span["flags"], span["font"], font_cache):
                    bold += n
                if spans is not None:
                    spans.append((t.translate(_CLEAN), span["size"]))
            text = " ".join("".join(parts).translate(_CLEAN).split())
            if not text or _ARXIV_STAMP.match(text):
                continue
            x0, y0, _, y1 = raw["bbox"]
            size = max(sizes, key=sizes.__getitem__)
            # "1" and "INTRODUCTION" come as two lines on one baseline: merge them.
            if prev is not None and abs(y1 - prev.y1) < 0.5 * (y1 - y0) and x0 > prev.x0:
                prev.text += " " + text
                share = total / (total + len(prev.text))
                prev.bold = prev.bold * (1 - share) + (bold / total) * share
                if prev.spans is not None and spans is not None:
                    prev.spans.extend([(" ", size)] + spans)
                continue
            prev = Line(text, size, bold / total, y0, y1, x0, bno, spans)
            lines.append(prev)
    return PageLines(number, page.rect.height, lines)


def _key(text: str) -> str:
    return _DIGITS.sub("#", text.lower())


def strip_running_lines(pages: list[PageLines], title: str = "") -> None:
    """Drop running headers/footers (lines repeating in the page margins) and page numbers."""
    need = max(2, round(0.2 * len(pages)))
    seen: Counter[str] = Counter()
    for pg in pages:
        top, bottom = _BAND * pg.height, (1 - _BAND) * pg.height
        seen.update({_key(ln.text) for ln in pg.lines if ln.y1 <= top or ln.y0 >= bottom})
    running = {k for k, n in seen.items() if n >= need}
    title_key = _key(title)
    for pg in pages:
        top, bottom = _BAND * pg.height, (1 - _BAND) * pg.height
        keep = []
        for i, ln in enumerate(pg.lines):
            key = _key(ln.text)
            margin = ln.y1 <= top or ln.y0 >= bottom
            if key in running:  # also on page 1, e.g. the ACM venue line in the copyright box
                continue
            if margin and pg.number > 1 and title_key and len(key) > 15 and title_key.startswith(key.rstrip(". …")):
                continue  # the paper's own title as a running header
            if margin and _PAGE_NUMBER.match(ln.text) and not _starts_heading(pg.lines, i):
                continue
            keep.append(ln)
        pg.lines = keep


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
    return {w.lower() for pg in pages for w in _WORD.findall("\n".join(ln.text for ln in pg.lines))}


def join_hyphenated(left: str, right: str, vocab: set[str]) -> str:
    """Join `left` (ending in "-") and `right` split at a line break, keeping real hyphens."""
    stem = left[:-1]
    core = _WORD.match(right)
    rword = core.group(0).lower() if core else right.lower()
    head = _WORD.findall(stem)
    lword = head[-1].lower() if head else stem.lower()
    joined, hyphened = lword + rword, lword + "-" + rword
    if "-" in lword or (hyphened in vocab and joined not in vocab):
        return left + right  # "state-of-the-" + "art", or a compound the text spells with "-"
    if joined in vocab or lword not in _COMPOUND_PREFIXES:
        return stem + right
    return left + right


def _heading_kind(ln: Line, body: float) -> bool:
    """Whether a line looks like a section heading by its text and font."""
    text = ln.text
    words = text.count(" ") + 1
    if words > 16 or len(_LETTERS.findall(text)) < 2 or _CAPTION.match(text):
        return False
    bold = ln.bold >= 0.9
    bigger = ln.size >= body + 0.8
    caps = text.upper() == text
    if is_text_heading(text):  # numbered ("3.2 Method") or a well-known name ("References")
        return bold or bigger or caps
    if text[-1] in ".,;:" or not text[0].isupper() or words > 10:
        return False
    return ln.size >= body + 1.5 or (bold and (bigger or caps) and words <= 8)


def front_matter_end(lines: list[Line], body: float, title_lines: int) -> int:
    """Index of the first heading on page 1 (e.g. Abstract); lines before it are title/authors."""
    for i, ln in enumerate(lines[title_lines:], start=title_lines):
        if is_text_heading(ln.text) and _heading_kind(ln, body):
            return i
        if ln.text.lower().startswith("abstract") and len(ln.text) > 12 and ln.text[8:9] in "—-.:– ":
            return i
    return title_lines


def page_paragraphs(pg: PageLines, body: float, vocab: set[str], skip: int = 0,
                    front: str | None = None) -> list[Para]:
    """Group a page's lines into paragraphs and headings; `skip` lines are front matter."""
    paras: list[Para] = []
    if skip:
        text = " ".join(ln.text for ln in pg.lines[:skip])
        paras.append(Para(pg.number, text, heading=False, label=front))
    cur: list[str] = []
    cur_block = -1
    in_heading = False

    def flush() -> None:
        if cur:
            paras.append(Para(pg.number, " ".join(cur), heading=False))
            cur.clear()

    for ln in pg.lines[skip:]:
        text = ln.text
        if text.lower().startswith("abstract") and len(text) > 12 and text[8:9] in "—-.:–":
            flush()  # run-in "Abstract—We propose ..." (IEEE style)
            paras.append(Para(pg.number, "Abstract", heading=True))
            text, in_heading, cur_block = text[9:].strip(), False, ln.block
        elif _heading_kind(ln, body) and (ln.block != cur_block or in_heading or not cur):
            if in_heading and ln.block == cur_block and len(paras[-1].text) < 120:
                paras[-1].text += " " + text  # a heading wrapped over two lines
            else:
                flush()
                paras.append(Para(pg.number, text, heading=True))
            in_heading, cur_block = True, ln.block
            continue
        if ln.block != cur_block and cur:
            last = cur[-1]
            # A paragraph broken by a column or figure goes on in lower case.
            if not (last.endswith("-") or text[:1].islower()):
                flush()
        cur_block, in_heading = ln.block, False
        if cur and cur[-1].endswith("-") and len(cur[-1]) > 1 and cur[-1][-2].isalpha() and text[:1].islower():
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


def smart_case(heading: str, cased: dict[str, str]) -> str:
    """Turn an ALL-CAPS heading into title case, keeping spellings the body uses (CiteSee, CCS)."""
    if heading.upper() != heading:
        return heading
    small = {"a", "an", "and", "as", "at", "by", "for", "from", "in", "of", "on", "or", "the", "to", "vs", "via", "with"}
    out = []
    for i, w in enumerate(heading.split()):
        low = w.lower()
        if low in cased:
            out.append(cased[low])
        elif i and low in small:
            out.append(low)
        else:
            out.append(w[:1] + w[1:].lower())
    return " ".join(out)


def cased_words(paras: list[Para]) -> dict[str, str]:
    """Map lower-case word -> body spelling for words the body writes with inner capitals."""
    counts: Counter[str] = Counter()
    for p in paras:
        if not p.heading:
            counts.update(w for w in _WORD.findall(p.text) if len(w) > 1 and w[1:] != w[1:].lower())
    out: dict[str, str] = {}
    for w, _ in counts.most_common():
        out.setdefault(w.lower(), w)
    return out


def label_headings(paras: list[Para]) -> None:
    """Set each heading paragraph's section label (smart-cased, References normalised)."""
    cased = cased_words(paras)
    for p in paras:
        if p.heading:
            p.label = heading_label(smart_case(p.text, cased))
