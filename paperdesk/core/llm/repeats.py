"""Cleaning what small models repeat."""

from __future__ import annotations

import re

# A sentence ends at . ! or ? before a capital: "[p. 2]", "et al. 2019" and "e.g. the" go on.
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z\"“(])")


def drop_repeats(text: str) -> str:
    """Drop sentences a small model repeats (a common failure of base models), anywhere in the text; the
    text's lines stay lines (blank ones and those left empty go), so a bulleted note keeps its page citation."""
    seen: set[str] = set()
    lines = []
    for line in text.split("\n"):
        kept = []
        for sentence in _SENTENCE_END.split(line.strip()):
            key = " ".join(sentence.lower().split())
            if key and key in seen:
                continue
            seen.add(key)
            kept.append(sentence)
        if any(kept):
            lines.append(" ".join(kept))
    return "\n".join(lines)
