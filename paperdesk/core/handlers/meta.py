"""Commands allowed in every state: help, status, history, clear, dialogue, ask, quit."""

from __future__ import annotations

from typing import TYPE_CHECKING

from paperdesk.core.commands.parse import Command
from paperdesk.core.commands.views import DialogueView, HelpView, HistoryView, Outcome

if TYPE_CHECKING:
    from paperdesk.core.desk.desk import Desk


def help_(desk: "Desk", command: Command) -> Outcome:
    rows = desk.workflow.availability()
    if command.text:
        rows = [r for r in rows if r.name == command.text]
    return Outcome(command.raw, "ok", "", HelpView(rows, command.text))


def status(desk: "Desk", command: Command) -> Outcome:
    return Outcome(command.raw, "ok", "", desk.status())


def history(desk: "Desk", command: Command) -> Outcome:
    return Outcome(command.raw, "ok", "", HistoryView(desk.store.history(limit=200)))


def clear(desk: "Desk", command: Command) -> Outcome:
    removed = desk.store.clear_history()
    return Outcome(command.raw, "ok", f"conversation history cleared ({removed} entries); the state is unchanged")


def dialogue(desk: "Desk", command: Command) -> Outcome:
    """The dialogue since the last act (empty until the dispatcher answers free text)."""
    turns = desk.talk.turns()
    return Outcome(command.raw, "ok", "" if turns else "the dialogue is empty", DialogueView(turns))


def ask(desk: "Desk", command: Command) -> Outcome:
    """`ask <message>`: what the dispatcher understands, without running it (Desk.run hands `ask` to the
    dispatcher itself; this handler answers when the command is executed directly, e.g. by a script)."""
    decision = desk.talk.understand(command.text)
    return Outcome(command.raw, "ok", f"{decision.line()}: {decision.reason}")


def quit_(desk: "Desk", command: Command) -> Outcome:
    view = desk.draft_view()
    note = f"; your {view.kind} draft is kept and resumes next time" if view and desk.state == "draft-summary" else ""
    return Outcome(command.raw, "ok", f"bye{note}", quit=True)
