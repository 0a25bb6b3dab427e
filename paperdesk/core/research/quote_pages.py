"""A quote cited to a page must be on that page: find the page that holds it, or shorten or drop it.

A report's citation shows a quote from its passage with the passage's page.
A passage can start on one page and go on to the next, or start with words
carried over from the page before, so its first words are not always on the
page it is filed under. Each quote is looked up in the paper's page texts
(compared on letters and digits only, so line breaks and hyphenation do not
matter): the page that holds it is cited; when no page holds all of it, the
longest opening part one page holds is kept, and when not even its first
words are on a page, the quote is dropped (the citation keeps its page).
"""

from __future__ import annotations

import re
from typing import Callable

PageText = Callable[[str, int], "str | None"]
MIN_WORDS = 6  # a shorter remnant is no quote


def _norm(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "", text.lower())


def place_quote(paper_id: str, page: int, quote: str, page_text: PageText, page_count: int) -> tuple[int, str]:
    """(the page that holds the quote, the quote as that page has it); quote "" when no page holds it."""
    words = quote.split()
    if not words:
        return page, ""
    order = [page] + [p for d in (1, -1, 2, -2) for p in [page + d] if 1 <= p <= page_count]
    order += [p for p in range(1, page_count + 1) if p not in order]
    texts: dict[int, str] = {}

    def norm_page(p: int) -> str:
        if p not in texts:
            texts[p] = _norm(page_text(paper_id, p) or "")
        return texts[p]

    whole = _norm(quote)
    for p in order:
        if whole and whole in norm_page(p):
            return p, quote
    # no page holds all of it: the longest opening part one page holds (a quote running across a page break)
    best: tuple[int, int] = (0, page)
    for p in order:
        hay = norm_page(p)
        lo, hi = 0, len(words)
        while lo < hi:  # the longest prefix of words that is on page p
            mid = (lo + hi + 1) // 2
            if _norm(" ".join(words[:mid])) in hay:
                lo = mid
            else:
                hi = mid - 1
        if lo > best[0]:
            best = (lo, p)
    if best[0] < MIN_WORDS:
        return page, ""
    return best[1], " ".join(words[: best[0]]).rstrip(",;:") + " …"
