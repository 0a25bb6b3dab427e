"""Prompt templates, one file per task under prompts/, filled with str.format."""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

PROMPT_DIR = Path(__file__).parent / "prompts"


@lru_cache(maxsize=None)
def template(name: str) -> str:
    return (PROMPT_DIR / f"{name}.txt").read_text(encoding="utf-8")


def render(name: str, **values: str) -> str:
    return template(name).format(**values)
