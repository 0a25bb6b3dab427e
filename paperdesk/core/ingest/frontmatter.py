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


def find_title(lines: list[Line], height: float, body: float) -> tuple[int, int]:
    """Index range of the title lines on page 1: the largest text in the top half."""
    cands = [i for i, ln in enumerate(lines) if ln.y0 < 0.5 * height and len(_LETTER.findall(ln.text)) >= 3]
    if not cands:
        return 0, 0
    big = max(lines[i].size for i in cands)
    if big < body + 1.0:  # nothing stands out as a title
        return 0, 0
    start = next(i for i in cands if lines[i].size >= big - 0.5)
    end = start + 1
    while (end < len(lines) and end - start < 4 and lines[end].size >= big - 0.5
           and 0 <= lines[end].y0 - lines[end - 1].y1 < 1.5 * big):
        end += 1
    return start, end


def _is_name(piece: str) -> bool:
    words = piece.split()
    if not 2 <= len(words) <= 5 or _ORG.search(piece) or len(piece) > 60:
        return False
    return all(w[0].isupper() or w.lower() in _PARTICLES for w in words) and all(
        _LETTER.search(w) for w in words
    )


def find_authors(lines: list[Line]) -> list[str]:
    """Author names from the lines between the title and the first heading.

    Authors share the font of the first line after the title; affiliations and
    e-mails use another. Superscript marks (smaller spans), commas and "and"
    separate names.
    """
    if not lines:
        return []
    first = next((ln for ln in lines if len(_LETTER.findall(ln.text)) >= 3), None)
    if first is None:
        return []
    names: list[str] = []
    for ln in lines[:40]:
        if abs(ln.size - first.size) > 0.3 or (ln.bold >= 0.5) != (first.bold >= 0.5):
            continue
        pieces, cur = [], []
        for text, size in ln.spans or [(ln.text, ln.size)]:
            if size < ln.size - 1.0:  # a superscript affiliation mark ends a name
                pieces.append("".join(cur))
                cur = []
            else:
                cur.append(text)
        pieces.append("".join(cur))
        for piece in pieces:
            for part in _NAME_SPLIT.split(piece):
                name = clean(part.strip(_MARKS))
                if _is_name(name) and name not in names:
                    names.append(name)
    return names
