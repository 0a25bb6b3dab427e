"""Asking first: a free-text message that would discard the user's text or papers waits for a yes.

The registry marks the commands that discard something (`CommandSpec.discards`:
abandon, remove, undo, redo, reject, step drop, clear, untag). When the
dispatcher's decision is one of them, the Desk does not run it: it answers
with the question (`question(desk, command)`, the same words typed `abandon`
and `remove` ask), and keeps the decision as `Pending`. The next message
decides: yes (y, yes, ok, go on ...) runs it through the guards like any
decision; anything else cancels it and changes nothing. A typed command, or
a change of state or selection in between (a summary that finished
meanwhile), drops it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING

from paperdesk.core.commands.parse import CommandError, parse
from paperdesk.core.dispatch.types import Decision

if TYPE_CHECKING:
    from paperdesk.core.desk.desk import Desk

_YES = re.compile(r"^(?:y|yes|yeah|yep|ok|okay|sure|go on|go ahead|do it|confirm|confirmed)(?:\s*,?\s*please)?[\s.!]*$",
                  re.I)


@dataclass(frozen=True)
class Pending:
    """A decision that waits for the user's yes, and the desk as it was when the question was asked."""

    message: str
    decision: Decision
    question: str
    where: tuple[str, str | None]  # (state, selected paper) when asked


def is_yes(reply: str) -> bool:
    return bool(_YES.match(reply.strip()))


def asks_first(decision: Decision) -> bool:
    """The decision runs a command that discards something (whatever its confidence)."""
    from paperdesk.core.commands.registry import discards

    return decision.action != "clarify" and bool(decision.command) and discards(decision.command or "")


def where(desk: "Desk") -> tuple[str, str | None]:
    """What a yes is about: the state and the selected paper (a revision the interrupted work stored meanwhile
    does not change what abandon or undo means)."""
    return desk.state, desk.session.selected


def question(desk: "Desk", line: str) -> str:
    """What the command would discard, as a yes/no question (typed abandon and remove ask the same)."""
    from paperdesk.core.handlers.new_paper import abandon_question

    try:
        command = parse(line)
    except CommandError:
        return f"Run `{line}`?"
    name = command.name
    if name == "abandon":
        return abandon_question(desk)
    if name == "remove":
        return f"Remove {paper_named(desk, command.ref)} from the library, with its PDF, notes and index entries?"
    if name in ("undo", "redo"):
        view = desk.draft_view()
        kind = view.kind if view is not None else "current"
        at = f" (now at revision {view.revision})" if view is not None and view.revision is not None else ""
        way = "back to the previous" if name == "undo" else "forward to the next"
        return f"Go {way} revision of the {kind} draft{at}?"
    if name == "reject":
        return "Reject the proposed plan revision? The previous plan stands and the proposal is discarded."
    if name == "step":
        return f"Drop step {command.text.split(' ', 1)[-1].strip()} from the plan?"
    if name == "clear":
        return f"Clear the conversation history ({len(desk.store.history(limit=100000))} entries)?"
    if name == "untag":
        paper, _, tags = command.text.partition(" ")
        return f"Take the tags {tags.strip()} off {paper}?"
    return f"Run `{line}`?"


def paper_named(desk: "Desk", ref: object) -> str:
    """"2302.07302v1 (CiteSee)" for a result number or an id; the reference as written when unknown."""
    number = getattr(ref, "number", None)
    pid = getattr(ref, "paper_id", None)
    results = desk.session.results
    if number is not None and 1 <= number <= len(results):
        pid = results[number - 1].id
    paper = desk.store.get_paper(pid) if pid else None
    if paper is None:
        return f"result {number}" if number is not None else str(pid or ref)
    return f"{paper.id} ({paper.title.split(':')[0][:60]})"


def request_text(decision: Decision, ask: str) -> str:
    """The Desk's answer to a message that asks first."""
    return f"understood as `{decision.command}`, which discards your work: {ask} Say yes to go on; anything " \
           "else cancels it and changes nothing"
