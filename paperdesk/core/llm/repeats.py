"""Cleaning what small models repeat."""

from __future__ import annotations

import re


def drop_repeats(text: str) -> str:
    """Drop sentences a small model repeats (a common failure of base models)."""
    seen: set[str] = set()
    out = []
    for sentence in re.split(r"(?<=[.!?\n])\s+", text):
        key = " ".join(sentence.lower().split())
        if key and key in seen:
            continue
        seen.add(key)
        out.append(sentence)
    return " ".join(out) if "\n" not in text else "\n".join(s.strip() for s in out)
