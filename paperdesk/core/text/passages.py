"""Finding text on a paper's pages: a cited passage on its page, and every match of a find.

Page text comes from PyMuPDF with the PDF's line breaks and hyphenation,
while a citation's quote is the chunk text with whitespace collapsed (and
search snippets may cut words). So a passage is located by its words, not
its characters: the longest run of the passage's words that appears in order
on the page, mapped back to character offsets of the page text.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from difflib import SequenceMatcher
from typing import Sequence

_WORD = re.compile(r"\w+", re.UNICODE)
MIN_WORDS = 3  # a shorter common run is chance, not the passage


def locate_passage(page_text: str, passage: str) -> tuple[int, int] | None:
    """(start, end) character offsets of `passage` on the page, or None when it is not there."""
    passage = passage.strip()
    if not passage or not page_text:
        return None
    exact = page_text.lower().find(passage.lower())
    if exact >= 0:
        return exact, exact + len(passage)
    page_words = [(m.group(0).lower(), m.start(), m.end()) for m in _WORD.finditer(page_text)]
    wanted = [w.lower() for w in _WORD.findall(passage)]
    if not page_words or not wanted:
        return None
    matcher = SequenceMatcher(None, [w for w, _, _ in page_words], wanted, autojunk=False)
    blocks = [b for b in matcher.get_matching_blocks() if b.size]
    if not blocks:
        return None
    best = max(blocks, key=lambda b: b.size)
    if best.size < min(MIN_WORDS, len(wanted)):
        return None
    # extend over neighbouring matched blocks that continue the passage closely (a hyphenated word breaks a run)
    first, last = best, best
    for block in blocks:
        if block.a + block.size <= first.a and first.a - (block.a + block.size) <= 2 and block.b < first.b:
            first = block
    for block in reversed(blocks):
        if block.a >= last.a + last.size and block.a - (last.a + last.size) <= 2 and block.b > last.b:
            last = block
    return page_words[first.a][1], page_words[last.a + last.size - 1][2]


@dataclass(frozen=True)
class Match:
    page: int  # 1-based
    start: int
    end: int


def find_matches(pages: Sequence[str], query: str) -> list[Match]:
    """Every case-insensitive occurrence of `query` (whitespace-flexible) on the pages, in reading order."""
    words = query.split()
    if not words:
        return []
    pattern = re.compile(r"\s+".join(re.escape(w) for w in words), re.IGNORECASE)
    return [Match(n, m.start(), m.end()) for n, text in enumerate(pages, start=1) for m in pattern.finditer(text)]


def matches_on(matches: Sequence[Match], page: int) -> list[tuple[int, int]]:
    """The (start, end) spans of the matches on one page."""
    return [(m.start, m.end) for m in matches if m.page == page]
