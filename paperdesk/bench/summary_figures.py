"""What a summary says of its paper, measured: coverage of the abstract's figures, generic and leaked sentences.

- coverage: of the figures the abstract states (numbers written with digits, years, ordinals and small counts
  left out),
  the share the summary states in a sentence citing a page that holds that figure;
- generic: a shown sentence with no figure, no name and no term of the paper's title (it could be said of
  any paper);
- leaked: a shown sentence with a run of six words from a prompt template.
"""

from __future__ import annotations

import re
from typing import Callable, Sequence

from paperdesk.core.agents.citations import CITATION
from paperdesk.core.prompt_leaks import leaks

# a figure: digits with a decimal part, a thousands separator, a unit suffix or a percent, or a number >= 13
# (an ordinal, "21st", "4th", is not a figure)
_FIGURE = re.compile(r"(?<![\w.])(\d{1,3}(?:,\d{3})+|\d+\.\d+|\d+)(?!\d|st\b|nd\b|rd\b|th\b)\s*(%|percent|[kKMB]\b)?")
_NAME = re.compile(r"\b[A-Za-z]*[A-Z][a-z0-9]*[A-Z][A-Za-z0-9-]*\b|(?<=\s)[A-Z][a-z]{2,}\b")
_PAGE = re.compile(r"\[p{1,2}\.\s*(\d+)(?:\s*[-–]\s*(\d+))?\]")
_WORD = re.compile(r"[a-z][a-z-]{3,}")
_STOP = frozenset("with from that this their using based paper study analysis approach method methods data".split())


def figures(text: str) -> set[str]:
    """The figures a text states, normalised ("81.1M", "28%", "1,234" -> "1234")."""
    out: set[str] = set()
    for match in _FIGURE.finditer(text):
        digits, unit = match.group(1).replace(",", ""), (match.group(2) or "").strip()
        value = float(digits)
        if not unit and "." not in digits and (value < 13 or 1900 <= value <= 2100):
            continue  # a small count or a year: too common to show that a summary reports this paper's results
        out.add(digits + ("%" if unit in ("%", "percent") else unit.upper()))
    return out


def cited_pages(sentence: str) -> list[int]:
    pages: list[int] = []
    for match in _PAGE.finditer(sentence):
        first = int(match.group(1))
        pages += range(first, int(match.group(2) or first) + 1)
    return pages


def coverage(abstract: str, sentences: Sequence[str], page: Callable[[int], str]) -> tuple[int, int]:
    """(abstract figures the summary states citing a page that holds them, abstract figures)."""
    wanted = figures(abstract)
    found: set[str] = set()
    for sentence in sentences:
        for figure in figures(CITATION.sub(" ", sentence)) & wanted:
            if any(figure in figures(page(p)) for p in cited_pages(sentence)):
                found.add(figure)
    return len(found), len(wanted)


def generic(sentence: str, title: str) -> bool:
    body = CITATION.sub(" ", sentence)
    if figures(body) or re.search(r"\d", body) or _NAME.search(" " + body[1:]):
        return False
    title_words = {w for w in _WORD.findall(title.lower()) if w not in _STOP}
    return not (set(_WORD.findall(body.lower())) & title_words)


def leaked(sentence: str) -> bool:
    return leaks(sentence)
