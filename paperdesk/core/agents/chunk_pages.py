"""Which of a passage's words lie on which page, for a chunk that runs over a page break.

A chunk records only its first and last page; the store keeps each page's
text. The chunk's words are matched, in order, against the pages it spans: a
word belongs to a page when a three-word run around it occurs there, and the
chunk is cut into one run per page (first page first) so that as few words
as possible land on a page that lacks them. What a sentence cites is then the
page holding the chunk's words it uses, not the whole page's other text
(abstract, captions, footnotes) that happens to share them.
"""

from __future__ import annotations

from typing import Callable

from paperdesk.core.agents.quality import words

PageText = Callable[[int], str]


def _trigrams(tokens: list[str]) -> set[tuple[str, ...]]:
    return {tuple(tokens[i : i + 3]) for i in range(len(tokens) - 2)}


def split_by_page(text: str, first: int, last: int, page_text: PageText) -> dict[int, list[str]]:
    """The chunk's words per page (first..last), in reading order; {} when the pages do not hold its words."""
    tokens = words(text)
    pages = list(range(first, last + 1))
    if not tokens or len(pages) < 2 or len(pages) > 8:
        return {}
    grams = [_trigrams(words(page_text(p) or "")) for p in pages]
    hits = []
    for i in range(len(tokens)):
        around = [tuple(tokens[j : j + 3]) for j in range(max(0, i - 2), min(i, len(tokens) - 3) + 1)]
        hits.append([any(g in page for g in around) for page in grams])
    if not any(any(h) for h in hits):
        return {}
    # monotone assignment: cost[k] = fewest words missing their page with the current word on page k
    inf = len(tokens) + 1
    cost = [0 if hits[0][k] else 1 for k in range(len(pages))]
    back: list[list[int]] = []
    for i in range(1, len(tokens)):
        best, arg, row, step = inf, 0, [], []
        for k in range(len(pages)):
            if cost[k] < best:  # stay on page k, or come from an earlier one (ties stay earlier)
                best, arg = cost[k], k
            row.append(best + (0 if hits[i][k] else 1))
            step.append(arg)
        cost = row
        back.append(step)
    k = min(range(len(pages)), key=lambda j: (cost[j], -j))
    owner = [0] * len(tokens)
    for i in range(len(tokens) - 1, -1, -1):
        owner[i] = k
        if i:
            k = back[i - 1][k]
    out: dict[int, list[str]] = {p: [] for p in pages}
    for token, k in zip(tokens, owner):
        out[pages[k]].append(token)
    return out
