"""The reader's page text with its marks: a cited passage, and find matches (the current one stands out)."""

from __future__ import annotations

from rich.text import Text

from paperdesk.core.passages import locate_passage

PASSAGE_STYLE = "reverse"
MATCH_STYLE = "underline bold"
CURRENT_STYLE = "reverse bold"


def marked_page(text: str, passage: str = "", matches: list[tuple[int, int]] | None = None,
                current: int | None = None) -> tuple[Text, int | None, bool]:
    """(rich text, line of the mark to scroll to, passage found) for one page.

    `matches` are (start, end) spans of find matches on this page; `current` indexes the one that is selected.
    """
    body = Text(text)
    line = None
    found = False
    if passage:
        span = locate_passage(text, passage)
        if span is not None:
            body.stylize(PASSAGE_STYLE, *span)
            line = text.count("\n", 0, span[0])
            found = True
    for i, (start, end) in enumerate(matches or []):
        body.stylize(CURRENT_STYLE if i == current else MATCH_STYLE, start, end)
        if i == current:
            line = text.count("\n", 0, start)
    return body, line, found
