"""`bench discuss`'s own check of a "not found" turn: does the discussed paper hold an answer after all?

Written apart from the teacher's gate. The question's content words (4+
letters, compared by their first five letters) that are rare in the paper
(on at most half of its pages: a word on every page, like the paper's own
name, tells nothing) must, at least three quarters of them and at least two,
stand together in one sentence of the paper. Such a sentence is where an
answer would be read; a "not found" for that question is counted as a miss.
"""

from __future__ import annotations

import re
from typing import Sequence

from paperdesk.bench.discuss_check import _COMMON, _flat

_WORD = re.compile(r"[a-z]+")
_ASKING = frozenset("what does how which when where whom whose why paper describe explain mean purpose".split())
SHARE = 0.75


def _words(text: str) -> set[str]:
    return {w[:5] for w in _WORD.findall(text.lower()) if len(w) >= 4 and w not in _COMMON and w not in _ASKING}


def answer_sentence(question: str, pages: Sequence[str]) -> str | None:
    """The paper's sentence holding most of the question's rare words, when it holds enough; else None."""
    flat = [_flat(p) for p in pages if p.strip()]
    if not flat:
        return None
    per_page = [_words(p) for p in flat]
    rare = {w for w in _words(question) if sum(w in ws for ws in per_page) <= max(1, len(flat) // 2)}
    if len(rare) < 2:
        return None
    best, best_share = None, 0.0
    for page in flat:
        for sentence in re.split(r"(?<=[.!?])\s+", page):
            share = len(rare & _words(sentence)) / len(rare)
            if share > best_share:
                best, best_share = sentence, share
    return best if best_share >= SHARE else None
