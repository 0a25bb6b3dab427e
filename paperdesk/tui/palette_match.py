"""How a palette query matches an entry: by its name, or (ranked lower) by what it does."""

from __future__ import annotations

from typing import Any

HELP_WEIGHT = 0.7  # a match on what a command does ranks below one on its name


def described_match(matcher: Any, label: str, help_text: str) -> float:
    """How well a query matches a palette entry: its name, or (ranked lower) its description, so "change the
    current theme" finds the theme command and "delete paper" finds remove."""
    return max(matcher.match(label), HELP_WEIGHT * matcher.match(help_text) if help_text else 0.0)
