"""A text copied from a prompt: any run of six or more words that a prompt template also holds.

Small models copy their prompt's worked examples, page numbers included, and a copied example reads like
a finding of the paper. Every template under prompts/ (instructions and examples alike) is read once; a
sentence that shares a run of RUN words with one of them is a leak. The gates drop such sentences (answers,
summaries, the teacher, the student's questions) and the benches count them in what was shown.
"""

from __future__ import annotations

import re
from functools import lru_cache

from paperdesk.core.prompts import PLACEHOLDER, PROMPT_DIR

RUN = 6  # words in a row that make a copy: short stock phrases ("in the first half of") stay free
_WORD = re.compile(r"[a-z0-9]+")
_MARK = re.compile(r"\[(?:p\.?\s*)?\d+(?:\s*[-–]\s*\d+)?\]", re.I)  # a citation is not a word of the text


def words(text: str) -> list[str]:
    return _WORD.findall(_MARK.sub(" ", text.lower()))


def runs(text: str, n: int = RUN) -> set[tuple[str, ...]]:
    found = words(text)
    return {tuple(found[i:i + n]) for i in range(len(found) - n + 1)}


@lru_cache(maxsize=1)
def prompt_runs() -> frozenset[tuple[str, ...]]:
    """Every RUN-word run of every prompt template, placeholders removed (they are not the prompt's words)."""
    found: set[tuple[str, ...]] = set()
    for path in sorted(PROMPT_DIR.glob("*.txt")):
        for part in PLACEHOLDER.split(path.read_text(encoding="utf-8"))[::2]:  # the text between placeholders
            found |= runs(part)
    return frozenset(found)


def copied_run(text: str) -> str | None:
    """The first RUN-word run of `text` that a prompt template holds, or None."""
    known = prompt_runs()
    found = words(text)
    for i in range(len(found) - RUN + 1):
        if tuple(found[i:i + RUN]) in known:
            return " ".join(found[i:i + RUN])
    return None


def leaks(text: str) -> bool:
    return copied_run(text) is not None
