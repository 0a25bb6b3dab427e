"""What the app asks of a command line before it runs it, beside or instead of the work that runs now.

`reader_page`: an `open` typed while work runs is shown by the reader alone
(the page, without the desk), so reading never stops a summary. `asks_first`:
typed `abandon` asks the same yes/no question ctrl+b asks before anything
is discarded.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from paperdesk.core.commands.parse import CommandError, parse

if TYPE_CHECKING:
    from paperdesk.core.desk.desk import Desk

__all__ = ["abandon_question", "asks_first", "reader_page"]


def abandon_question(desk: "Desk") -> str:
    """What `abandon` will discard, as the yes/no question to ask (the handlers load on first use)."""
    from paperdesk.core.handlers.new_paper import abandon_question as question

    return question(desk)


def reader_page(desk: "Desk", line: str) -> tuple[str, int] | None:
    """(paper id, page) when `line` is an `open` the workflow allows now, for the reader to show alone."""
    try:
        command = parse(line)
    except CommandError:
        return None
    if command.name != "open" or desk.workflow.refusal("open") is not None:
        return None
    assert command.ref is not None
    number, results = command.ref.number, desk.session.results
    if number is not None and not 1 <= number <= len(results):
        return None  # the desk says what is wrong, after asking to stop the work
    paper_id = results[number - 1].id if number is not None else command.ref.paper_id or ""
    return paper_id, command.page or 1


def asks_first(desk: "Desk", line: str) -> bool:
    """`line` is an abandon the workflow would run now: the user confirms it first."""
    try:
        name = parse(line).name
    except CommandError:
        return False
    return name == "abandon" and desk.workflow.refusal("abandon") is None
