"""Title and authors: from PDF metadata when it is sensible, else from page 1's layout."""

from __future__ import annotations

import re

from paperdesk.core.ingest.layout import Line

_LETTER = re.compile(r"[^\W\d_]")
_WORD = re.compile(r"[^\W\d_]+")
_FILE_NAME = re.compile(r"\.(pdf|docx?|tex|dvi|ps|indd|pptx?|rtf|odt)$", re.I)
_BAD_TITLE = re.compile(r"^(microsoft (word|powerpoint)|untitled|title|document\d*|main|paper|arxiv|slide)\b", re.I)
_BAD_AUTHOR = re.compile(r"^(author|authors|unknown|admin|administrator|user|owner|anonymous)s?\b", re.I)
_NAME_SPLIT = re.compile(r"\s*(?:,|;|\band\b|&|\s{3,})\s*")
_ORG = re.compile(
    r"universit|institut|college|school|department|dept\b|laborator|\blab\b|\binc\b|corp|research|"
    r"center|centre|academy|foundation|google|microsoft|facebook|meta ai|amazon|ibm|\busa\b|@|https?:|www\.",
    re.I,
)
_PARTICLES = frozenset("van von der den de del della da di du le la bin al el dos das ter ten".split())
_MARKS = " *∗†‡§¶♣♦♥♠◊⋄□■○●∙•#0123456789,;:"


def clean(text: str) -> str:
    return " ".join(text.split())


def sensible_title(meta_title: str, first_page_text: str) -> str:
    """The metadata title if it is a real title that page 1 also shows, else ""."""
    title = clean(meta_title or "")
    if len(title) < 4 or not _LETTER.search(title) or _BAD_TITLE.match(title):
        return ""
    if " " not in title or _FILE_NAME.search(title):  # "main", "paper_v3", "draft.docx"
        return ""
    words = [w.lower() for w in _WORD.findall(title)]
    page = first_page_text.lower()
    # Templates leave titles like "Instructions for ACL Proceedings": require page 1 to show it.
    if words and sum(w in page for w in words) / len(words) < 0.6:
        return ""
    return title


def sensible_authors(meta_author: str) -> list[str]:
    """Names from the metadata author field, or [] when it is empty or junk."""
    text = clean(meta_author or "")
    if not _LETTER.search(text) or _BAD_AUTHOR.match(text) or " " not in text:
        return []
    return [n for n in (clean(p) for p in _NAME_SPLIT.split(text)) if _is_name(n)]


def find_title(lines: list[Line], height: float, body: float) -> list[int]:
    """Indexes of the title lines on page 1: the largest text in the top half, in reading order.

    The lines are gathered by position, not by their order in the file: a title's lines may overlap
    (tall glyphs in a tight leading) or come in separate blocks after other text.
    """
    cands = [i for i, ln in enumerate(lines) if ln.y0 < 0.5 * height and len(_LETTER.findall(ln.text)) >= 3
             and not _STAMP.search(ln.text)]
    if not cands:
        return []
    big = max(lines[i].size for i in cands)
    if big < body + 1.0:  # nothing stands out by size: a title set in capitals at body size, if there is one
        return _capital_title(lines, [i for i in cands if lines[i].y0 < 0.35 * height])
    same = sorted((i for i in cands if lines[i].size >= big - 0.5), key=lambda i: (lines[i].y0, lines[i].x0))
    chosen = [same[0]]
    bottom = lines[same[0]].y1
    for i in same[1:]:
        ln = lines[i]
        if len(chosen) >= 4 or ln.y0 - bottom > 1.5 * big:
            break
        chosen.append(i)
        bottom = max(bottom, ln.y1)
    return chosen


_STAMP = re.compile(r"\barXiv:\s?\d{4}\.\d{4,5}|\barXiv:[a-z-]+/\d{7}")


def _capital_title(lines: list[Line], cands: list[int]) -> list[int]:
    """The first lines near the top set in capitals (three words or more, every letter upper case), one
    after another: many journals and vignettes set the title so, at the body's size."""
    chosen: list[int] = []
    for i in sorted(cands, key=lambda i: (lines[i].y0, lines[i].x0)):
        letters = _LETTER.findall(lines[i].text)
        capitals = len(letters) >= 10 and sum(c.isupper() for c in letters) >= 0.9 * len(letters)
        if capitals and (chosen or len(lines[i].text.split()) >= 3):
            if chosen and lines[i].y0 - lines[chosen[-1]].y1 > 2 * lines[i].size:
                break
            chosen.append(i)
            if len(chosen) == 4:
                break
        elif chosen:
            break
    return chosen


def title_text(lines: list[Line]) -> str:
    """The title's lines as one line; a line ending in "-" joins the next without a space ("Long-form")."""
    text = ""
    for ln in lines:
        part = clean(ln.text)
        text += part if not text or text.endswith("-") else " " + part
    return text


def _is_name(piece: str) -> bool:
    words = piece.split()
    if not 2 <= len(words) <= 5 or _ORG.search(piece) or len(piece) > 60:
        return False
    return all(w[0].isupper() or w.lower() in _PARTICLES for w in words) and all(
        _LETTER.search(w) for w in words
    )


def _prose(ln: Line) -> bool:
    """A line of running text (an abstract with no heading): many words, most in lower case."""
    words = _WORD.findall(ln.text)
    return len(words) >= 6 and sum(w[0].islower() for w in words) >= 0.5 * len(words)


def front_lines(lines: list[Line], below: float) -> list[Line]:
    """The lines under the title that may name the authors: up to the first line of running text."""
    out: list[Line] = []
    for ln in lines[:40]:
        if ln.y1 < below - 1.0:  # beside or above the title (a venue banner, a logo's caption)
            continue
        if _prose(ln):
            break
        out.append(ln)
    return out


def find_authors(lines: list[Line], page_text: str = "") -> list[str]:
    """Author names from the front-matter lines under the title.

    Authors share the font of the first line that names one; affiliations and
    e-mails use another. Superscript marks (smaller spans), wide gaps, commas
    and "and" separate names. Names set in capitals are given their casing from
    elsewhere on the page (an ACM reference block) or else in title case.
    """
    first = next((ln for ln in lines if _names_in(ln)), None)
    if first is None:
        return []
    names: list[str] = []
    for ln in lines:
        if abs(ln.size - first.size) > 0.3 or (ln.bold >= 0.5) != (first.bold >= 0.5):
            continue
        for name in _names_in(ln):
            name = proper_case(name, page_text)
            if name not in names:
                names.append(name)
    return names


def _names_in(ln: Line) -> list[str]:
    pieces, cur = [], []
    for text, size in ln.spans or [(ln.text, ln.size)]:
        if size < ln.size - 1.0:  # a superscript affiliation mark (or a wide gap) ends a name
            pieces.append("".join(cur))
            cur = []
        else:
            cur.append(text)
    pieces.append("".join(cur))
    names = []
    for piece in pieces:
        for part in _NAME_SPLIT.split(piece):
            name = clean(part.strip(_MARKS))
            if _is_name(name):
                names.append(name)
    return names


def proper_case(name: str, page_text: str = "") -> str:
    """A name set in capitals ("MARTI A. HEARST") as it is spelled elsewhere on the page, else title-cased."""
    if any(c.islower() for c in name) or sum(c.isalpha() for c in name) < 3:
        return name
    match = re.search(r"\b" + r"\s+".join(map(re.escape, name.split())) + r"\b", page_text, re.I)
    if match and any(c.islower() for c in match.group(0)):
        return clean(match.group(0))
    words = name.split()
    return " ".join(_case_word(w, first=i == 0) for i, w in enumerate(words))


def _case_word(word: str, first: bool) -> str:
    if not first and word.lower() in _PARTICLES:
        return word.lower()
    if re.fullmatch(r"[IVX]+", word) and len(word) > 1:  # "III"
        return word
    out = re.sub(r"[^\W\d_]+", lambda m: m.group(0).capitalize(), word.lower())  # Jean-Pierre, O'Brien
    return "Mc" + out[2:].capitalize() if out.startswith("Mc") and len(out) > 4 else out  # McDonald
