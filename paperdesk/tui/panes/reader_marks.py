"""The reader's page text with its marks: a cited passage, and find matches (the current one stands out)."""

from __future__ import annotations

from rich.text import Text
from textual.content import Content

from paperdesk.core.text.passages import locate_passage

PASSAGE_STYLE = "reverse"
MATCH_STYLE = "underline bold"
CURRENT_STYLE = "reverse bold"


def marked_page(text: str, passage: str = "", matches: list[tuple[int, int]] | None = None,
                current: int | None = None) -> tuple[Text, int | None, bool]:
    """(rich text, character offset of the mark to scroll to, passage found) for one page.

    `matches` are (start, end) spans of find matches on this page; `current` indexes the one that is selected.
    """
    body = Text(text)
    line = None
    found = False
    if passage:
        span = locate_passage(text, passage)
        if span is not None:
            body.stylize(PASSAGE_STYLE, *span)
            line = span[0]
            found = True
    for i, (start, end) in enumerate(matches or []):
        body.stylize(CURRENT_STYLE if i == current else MATCH_STYLE, start, end)
        if i == current:
            line = start
    return body, line, found


def mark_row(text: str, offset: int, width: int) -> int:
    """The screen row (0-based) on which character `offset` of `text` stands once wrapped at `width` columns:
    page text has long lines, so its line breaks alone put a mark far above where it is shown."""
    if offset <= 0 or width <= 0:
        return 0
    return max(0, len(Content(text[:offset]).wrap(width)) - 1)
