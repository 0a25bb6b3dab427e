"""Prompt templates, one file per task under prompts/, with {name} placeholders.

Only `{identifier}` is a placeholder, so literal braces (a JSON example in a
prompt) are left as they are; a placeholder without a value is an error
naming it, never a silently half-filled prompt.
"""

from __future__ import annotations

import re
from functools import lru_cache
from pathlib import Path

from paperdesk.core.errors import PaperdeskError

PROMPT_DIR = Path(__file__).parent / "prompts"
PLACEHOLDER = re.compile(r"\{([A-Za-z_][A-Za-z0-9_]*)\}")


class PromptError(PaperdeskError):
    """A prompt template was filled without a value it needs."""


@lru_cache(maxsize=None)
def template(name: str) -> str:
    return (PROMPT_DIR / f"{name}.txt").read_text(encoding="utf-8")


def placeholders(text: str) -> list[str]:
    """The placeholder names of a template, in order of first use."""
    return list(dict.fromkeys(PLACEHOLDER.findall(text)))


def fill(text: str, **values: str) -> str:
    """Replace each {name} in `text` by its value; PromptError when a value is missing."""
    missing = [name for name in placeholders(text) if name not in values]
    if missing:
        raise PromptError(f"prompt needs a value for {', '.join(missing)}")
    # one pass, so braces inside the values are never read as placeholders
    return PLACEHOLDER.sub(lambda m: str(values[m.group(1)]), text)


def render(name: str, **values: str) -> str:
    """Template `name` filled with `values`."""
    try:
        return fill(template(name), **values)
    except PromptError as exc:
        raise PromptError(f"prompt {name}: {exc}") from None
