"""Sentences that only restate the question: shown as an answer, they cite a source and say nothing.

"Based on the information in the passages, here is how these papers evaluate
summaries: [8]" carries a citation yet adds no word the question did not hold.
A sentence restates the question when, its source marks removed, it has no
number the question lacks and every content word (three letters or more) is one of the question's
(compared by their first five letters, so "evaluate" and "evaluation" match)
or a word about the sources themselves. For a yes/no question a plain
restatement is the answer ("X uses Y" to "Does X use Y?"), so there only a
sentence that speaks of the sources, or leads into a colon, restates it.
"""

from __future__ import annotations

import re

from paperdesk.core.agents.attribution import split_sentences

_MARK = re.compile(r"\s*\[[^\]]{1,40}\]")
_WORD = re.compile(r"[a-z]+")
_NUMBER = re.compile(r"\d+(?:[.,]\d+)*")
_ABOUT_SOURCES = frozenset(
    "according answer based below context described discussed document documents excerpt excerpts following "
    "given here heres information mentioned overview paper papers passage passages provided question shown "
    "source sources summary summarize text there these this those what which with from their that they "
    "the and are was were how why who its has have had can all also both for into our out than then".split())
_YES_NO = re.compile(r"^\s*(?:is|are|was|were|do|does|did|can|could|has|have|had|will|would|should)\b", re.I)


def _prefixes(text: str) -> set[str]:
    """Content words as their first five letters, a plural or third-person "s" dropped ("uses" is "use")."""
    return {(w[:-1] if w.endswith("s") and not w.endswith("ss") else w)[:5]
            for w in _WORD.findall(text.lower()) if len(w) >= 3}


def restates(sentence: str, question: str) -> bool:
    """True when the sentence says nothing the question did not (see the module docstring)."""
    bare = _MARK.sub(" ", sentence).strip()
    # a figure the question itself gives ("k = 1 to 5") is no more an answer than its words
    if not bare or set(_NUMBER.findall(bare)) - set(_NUMBER.findall(question)):
        return False
    meta = {w[:5] for w in _ABOUT_SOURCES}
    words = _prefixes(bare)
    new = words - _prefixes(question) - meta
    if new:
        return False
    if _YES_NO.match(question):
        return bool(words & meta - _prefixes(question)) or bare.rstrip().endswith(":")
    return True


def drop_restatements(text: str, question: str) -> tuple[str, list[str]]:
    """The text without its sentences that restate the question, and those sentences."""
    kept, dropped = [], []
    # a source mark then a full stop ends a sentence, whatever case the next starts in ("party, in ...")
    for sentence in (part for piece in split_sentences(text) for part in re.split(r"(?<=\]\.)\s+", piece) if part):
        (dropped if restates(sentence, question) else kept).append(sentence)
    return (" ".join(kept) if dropped else text), dropped
