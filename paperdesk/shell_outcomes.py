"""What the shell says when a command fails or a discarding command is declined; shared by the shell's
loop (shell.py) and the reading of input while work runs (shell_live.py), below both."""

from __future__ import annotations

from typing import TYPE_CHECKING, Callable

from paperdesk.core.commands.views import Outcome

if TYPE_CHECKING:
    from paperdesk.core.desk.desk import Desk


def failed_outcome(line: str, exc: Exception) -> Outcome:
    from paperdesk.core.db.diskspace import is_disk_full

    if is_disk_full(exc):
        return Outcome(line, "error", f"the disk is full ({exc}): free some space and try again")
    return Outcome(line, "error", f"internal error: {type(exc).__name__}: {exc}; the shell goes on")


def declined(desk: Desk, line: str, ask: "Callable[[str], bool] | None" = None) -> str | None:
    """None to go ahead; else what was kept, when the user says no to an abandon that would discard a draft or
    to a remove (a script's lines run as written)."""
    from paperdesk.core.commands.parse import CommandError, parse
    from paperdesk.core.dispatch.confirm import question

    try:
        command = parse(line)
    except CommandError:
        return None
    if command.name not in ("abandon", "remove") or desk.workflow.refusal(command.name) is not None:
        return None
    kept = "abandon: nothing discarded; the draft is kept" if command.name == "abandon" else "nothing removed"
    return None if (ask or ask_yes)(question(desk, line)) else kept


def ask_yes(question: str) -> bool:
    """The y/N prompt every question that discards something gets (typed, or the desk's for free text)."""
    try:
        answer = input(f"{question} [y/N] ")
    except (EOFError, KeyboardInterrupt):
        print()
        answer = ""
    return answer.strip().lower() in ("y", "yes")
