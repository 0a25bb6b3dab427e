"""What the app asks of a command line before it runs it, beside or instead of the work that runs now.

`reader_page`: an `open` typed while work runs is shown by the reader alone
(the page, without the desk), so reading never stops a summary. `asks_first`:
`remove` and typed `abandon` ask a yes/no question (the one ctrl+b asks)
before anything is deleted or discarded; `question` is its wording.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from paperdesk.core.commands.parse import Command, CommandError, parse
from paperdesk.tui.line_gate import AskFirst

if TYPE_CHECKING:
    from paperdesk.core.desk.desk import Desk

__all__ = ["abandon_question", "asks_first", "question", "reader_page"]


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


def asks_first(desk: "Desk", line: str) -> AskFirst | None:
    """`line` is a remove or an abandon the workflow would run now: the user confirms it first."""
    try:
        name = parse(line).name
    except CommandError:
        return None
    if name in ("remove", "abandon") and desk.workflow.refusal(name) is None:
        return AskFirst(name)
    return None


def question(desk: "Desk", line: str, asks: AskFirst) -> str:
    """The yes/no question asked before `line` deletes a paper or discards the draft."""
    if asks is AskFirst.ABANDON:
        return abandon_question(desk)
    command = parse(line)
    what = _paper_named(desk, command) or command.ref
    return f"Remove {what} from the library, with its PDF, notes and index entries?"


def _paper_named(desk: "Desk", command: Command) -> str:
    results, ref = desk.session.results, command.ref
    if ref is not None and ref.number is not None and 1 <= ref.number <= len(results):
        item = results[ref.number - 1]
        return f"{item.id} ({item.title})"
    return ""
