"""Page citations like [p. 4] or [pp. 4-5]: find them, and drop the ones no source supports."""

from __future__ import annotations

import re
from dataclasses import dataclass

CITATION = re.compile(r"\[\s*pp?\.\s*(\d+)(?:\s*[-–]\s*(\d+))?\s*\]")


@dataclass
class CitationCheck:
    text: str
    kept: list[int]
    removed: list[int]


def check_citations(text: str, page_count: int, supported_pages: set[int]) -> CitationCheck:
    """Remove citations to pages the paper lacks or no source chunk covers; report both lists."""
    kept: list[int] = []
    removed: list[int] = []

    def replace(match: re.Match[str]) -> str:
        first = int(match.group(1))
        last = int(match.group(2) or first)
        pages = list(range(first, last + 1)) if 0 < last - first < 20 else [first]
        if all(1 <= p <= page_count and p in supported_pages for p in pages):
            kept.extend(pages)
            return match.group(0)
        removed.extend(pages)
        return ""

    cleaned = CITATION.sub(replace, text)
    cleaned = re.sub(r"[ \t]+([.,;:])", r"\1", cleaned)
    cleaned = re.sub(r"[ \t]{2,}", " ", cleaned)
    return CitationCheck(cleaned, kept, removed)
