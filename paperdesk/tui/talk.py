"""Free text in the TUI command line: decide in a worker, show "understood as", then through the line gate.

A line that does not start with a command word (or `ask <message>`) is a
message. The dispatcher decides in a worker thread (it encodes the message
with the embedder); the decision appears on the "understood as" line above the
command line before anything runs. Below CONFIRM_BELOW it waits for Enter (run
it) or Esc (drop it); one that would discard work (abandon, undo, remove ...) is
asked by the desk itself, and the app shows that question as the y/n dialog
typed `abandon` gets. While a command runs, a message that needs the desk for
new work interrupts it (the partial draft is kept) and then runs; navigation,
read-only commands and clarifying questions answer beside the running work.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from textual.message import Message

from paperdesk.core.commands.parse import canonical_name
from paperdesk.tui.line_gate import Entry, Origin

if TYPE_CHECKING:
    from paperdesk.core.dispatch.types import Decision
    from paperdesk.core.commands.views import Outcome
    from paperdesk.tui.app import PaperDeskApp


def message_of(line: str) -> str | None:
    """The message a command-line entry carries, or None when it is a command."""
    word, _, rest = line.strip().partition(" ")
    name = canonical_name(word)
    if name == "ask":
        return rest.strip() or None
    return line.strip() if name is None and line.strip() else None


@dataclass
class Decided(Message):
    """The dispatcher's decision for a message (posted by the deciding worker)."""

    message: str
    decision: "Decision"


@dataclass
class BesideDone(Message):
    """A message answered beside running work (navigation, a read-only command, a question back)."""

    outcome: "Outcome"


class TalkController:
    def __init__(self, app: "PaperDeskApp") -> None:
        self.app = app
        self.awaiting: tuple[str, Decision] | None = None  # a low-confidence decision waiting for Enter/Esc

    def submit(self, message: str) -> None:
        """Decide in a worker; the answer comes back as Decided."""
        self.awaiting = None
        self.app.command_line.understood(f"understanding “{message}” …")
        self.app.run_worker(lambda: self._decide(message), thread=True, group="dispatch", exit_on_error=False)

    def _decide(self, message: str) -> None:
        desk = self.app.desk
        assert desk is not None
        self.app.post_message(Decided(message, desk.talk.understand(message)))

    def decided(self, message: str, decision: Decision) -> None:
        from paperdesk.core.dispatch.confirm import asks_first
        from paperdesk.core.dispatch.talk import CONFIRM_BELOW

        # a decision that discards work gets the desk's yes/no dialog instead (ask_first), whatever its confidence
        if decision.action != "clarify" and decision.confidence < CONFIRM_BELOW and not asks_first(decision):
            self.awaiting = (message, decision)
            self.app.command_line.understood(f"understood as {decision.line()} · Enter runs it, Esc cancels")
            return
        self.go(message, decision)

    def confirm(self) -> bool:
        """Enter on an empty command line while a decision waits: run it."""
        if self.awaiting is None:
            return False
        message, decision = self.awaiting
        self.awaiting = None
        self.go(message, decision)
        return True

    def decline(self) -> bool:
        """Esc while a decision waits: nothing runs; the dialogue and history say so."""
        if self.awaiting is None:
            return False
        message, decision = self.awaiting
        self.awaiting = None
        desk = self.app.desk
        if desk is not None:
            desk.talk.decline(message, decision)
        self.app.command_line.understood(f"not run: {decision.line()}")
        return True

    def go(self, message: str, decision: Decision, confirmed: bool = False) -> None:
        """Shown as understood, then through the gate like any line (run, interrupt, or answered beside)."""
        self.app.command_line.understood(f"understood as {decision.line()}")
        self.app.enter(Entry(f"ask {message}", Origin.DECIDED, confirmed=confirmed, message=message,
                             decision=decision))

    def ask_first(self, question: str) -> None:
        """The desk asks before free text discards work: the yes/no dialog typed `abandon` gets; y runs it."""
        from paperdesk.tui.screens.confirm import ConfirmScreen

        self.app.push_screen(ConfirmScreen(question), self.answered)

    def answered(self, yes: bool | None) -> None:
        """The dialog's answer goes to the desk as the next message: yes runs the kept decision, no cancels it."""
        desk = self.app.desk
        pending = desk.talk.pending if desk is not None else None
        if pending is None:
            return
        if yes:
            self.go("yes", pending.decision, confirmed=True)
        else:
            self.app.enter(Entry("ask no", Origin.DECIDED, message="no"))
