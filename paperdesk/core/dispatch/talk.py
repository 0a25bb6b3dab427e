"""The Desk's side of the dispatcher: a free-text message in, a shown decision, then a command through the guards.

`Talk` belongs to one Desk. `understand(message)` decides (rules, exemplars)
against the live session; `act(message, decision)` records the message in the
dialogue and does what was decided: asks the clarifying question, or runs the
command exactly like a typed one (a refusal says what was understood, why it
cannot run now and what would enable it; nothing runs). `submit` does both and
is safe while a command runs: it decides first and interrupts the running work
only when the decision needs the desk for new work (navigation and read-only
commands answer beside it). The dialogue is kept here as well as in the
session, so a cancelled command's roll-back can never lose a message.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from typing import TYPE_CHECKING, Callable

from paperdesk.core.commands.parse import CommandError, parse
from paperdesk.core.dispatch.confirm import Pending, asks_first, is_yes, question, request_text, where
from paperdesk.core.dispatch.dialogue import ACT_COMMANDS, Dialogue
from paperdesk.core.dispatch.types import Decision
from paperdesk.core.commands.views import CommandFinished, Outcome

if TYPE_CHECKING:
    from paperdesk.core.desk.desk import Desk
    from paperdesk.core.dispatch.dispatcher import Dispatcher

CONFIRM_BELOW = 0.6  # a face asks Enter/Esc before running a decision less sure than this


@dataclass(frozen=True)
class Understood:
    """Event: what a free-text message was understood as, before anything runs."""

    message: str
    decision: Decision
    interrupting: bool = False  # it stops the running work to do this

    @property
    def line(self) -> str:
        return self.decision.line()


class Talk:
    def __init__(self, desk: "Desk") -> None:
        self.desk = desk
        self.dialogue = Dialogue.from_json(desk.session.dialogue)
        self._dispatcher: "Dispatcher | None" = None
        self._serial = threading.Lock()  # one message decided and handed over at a time, in arrival order
        self.pending: Pending | None = None  # a decision that discards something, waiting for the user's yes

    @property
    def dispatcher(self) -> "Dispatcher":
        if self._dispatcher is None:
            from paperdesk.core.dispatch.dispatcher import Dispatcher

            self._dispatcher = Dispatcher(self.desk.library.embedder.phrases())
        return self._dispatcher

    # -- the dialogue ------------------------------------------------------------------------

    def prompt_block(self) -> str:
        """The optional "User dialogue" block every agent of the cycle gets ("" when empty)."""
        return self.dialogue.as_prompt_block()

    def turns(self) -> list[tuple[str, str]]:
        """The dialogue since the last act as (role, text), as stored with the session."""
        return [(turn.role, turn.text) for turn in Dialogue.from_json(self.desk.session.dialogue).turns]

    def _sync(self) -> None:
        self.desk.session.dialogue = self.dialogue.to_json()

    def after_command(self, name: str, outcome: Outcome) -> None:
        """A command finished (typed or delegated): the cycle's act (save, abandon, clear) empties the dialogue."""
        if outcome.ok and name in ACT_COMMANDS:
            self.dialogue.clear()
        self._sync()

    # -- deciding and acting -------------------------------------------------------------------

    def understand(self, message: str) -> Decision:
        """What the message asks for, against the session as it is now; runs nothing."""
        from paperdesk.core.dispatch import session_context

        d = self.desk
        ctx = session_context.from_session(d.state, d.session, d.store, d.drafts, self.dialogue)
        running = d._command if d.busy else None
        if running:  # a message now interrupts this command: "focus on X" during research steers that research
            ctx.interrupted = running
        return self.dispatcher.decide(message, ctx)

    def understands(self, line: str) -> bool:
        """A malformed command line that is really a message: read with confidence ("summarize the second one"),
        or words the dispatcher should ask about ("summarize that one"); "summarize banana" keeps its error."""
        try:
            decision = self.understand(line)
        except Exception:  # noqa: BLE001 - no embedder, no guess: the parse error stands
            return False
        if decision.action == "clarify":  # "summarize that one": words, not a typo; the question helps more
            return len(line.split()) >= 3
        return decision.confidence >= CONFIRM_BELOW

    def interrupts(self, decision: Decision) -> bool:
        """Does running this decision stop the running work? Only a command that needs the desk for new work
        and that the workflow allows (Desk.may_stop_for); navigate, read-only, clarify and a refused command
        answer beside it, so a refused command never interrupts."""
        if decision.action in ("clarify", "navigate") or not decision.command:
            return False
        try:
            command = parse(decision.command)
        except CommandError:
            return False  # said beside the work: "understood as ..., but ..."
        return self.desk.may_stop_for(command)

    def submit(self, message: str, confirm: Callable[[Decision], bool] | None = None) -> Outcome:
        """Decide, show the decision (an Understood event), then act; safe to call while a command runs.

        While busy, a decision that needs the desk cancels the running command's
        own token (the partial draft is kept as an interrupted revision), waits
        for it to put its state down, decides again against that state, then
        runs. `confirm(decision)` (a face's Enter/Esc) may decline: nothing runs.
        A decision that would discard the user's work runs nothing: the outcome
        asks (`Outcome.confirm`) and the next message answers (see confirm.py).
        """
        with self._serial:
            pending, self.pending = self.pending, None
            if pending is not None:
                return self._answered(message, pending)
            decision = self.understand(message)
            if asks_first(decision) and self._allowed(decision):  # one the guards refuse is refused at once
                self.desk.emit(Understood(message, decision))
                return self._ask_first(message, decision)
            return self._go(message, decision, confirm)

    def _allowed(self, decision: Decision) -> bool:
        try:
            command = parse(decision.command or "")
        except CommandError:
            return False
        return self.desk.workflow.refusal(command.name, **self.desk._guard_context(command)) is None

    def _go(self, message: str, decision: Decision, confirm: Callable[[Decision], bool] | None = None) -> Outcome:
        busy = self.desk.busy
        interrupt = busy and self.interrupts(decision)
        self.desk.emit(Understood(message, decision, interrupt))
        if confirm is not None and decision.action != "clarify" and not confirm(decision):
            return self.decline(message, decision)
        if interrupt:
            token = self.desk._token
            if token is not None:
                token.cancel()  # that command's own token: a command started after it is never hit
            with self.desk._lock:  # the interrupted command has stored its partial work
                pass
            again = self.understand(message) if not asks_first(decision) else decision
            if again.to_json() != decision.to_json():
                decision = again
                self.desk.emit(Understood(message, decision))
                if asks_first(decision) and self._allowed(decision):  # the state the interrupted work left
                    return self._ask_first(message, decision)
        elif busy and decision.action != "clarify":
            return self._beside(message, decision)
        return self.act(message, decision)

    def _ask_first(self, message: str, decision: Decision) -> Outcome:
        """Run nothing; say what would be discarded and keep the decision for the next message's yes."""
        ask = question(self.desk, decision.command or "")
        self.pending = Pending(message, decision, ask, where(self.desk))
        self.dialogue.receive(message)
        self.dialogue.note(f"{decision.line()}: asked first: {ask}", "confirm")
        outcome = Outcome(message, "ok", request_text(decision, ask), confirm=ask)
        return self._finish(outcome, message, f"{decision.line()}; asked first: {ask}")

    def _answered(self, reply: str, pending: Pending) -> Outcome:
        """The message after a question: yes runs the kept decision, anything else cancels it."""
        decision = pending.decision
        if not is_yes(reply):
            return self.decline(reply, decision, "cancelled by the reply; nothing changed", emit=True)
        if where(self.desk) != pending.where:
            return self.decline(reply, decision, f"the desk changed since the question (now {self.desk.state}); "
                                                 f"nothing ran, say it again", emit=True)
        return self._go(reply, decision)

    def drop_pending(self) -> None:
        """A typed command came instead of an answer: the question lapses."""
        if self.pending is not None:
            self.pending = None
            self.dialogue.note("the question lapsed: a typed command came instead", "refusal")
            self._sync()

    def decline(self, message: str, decision: Decision, why: str = "", emit: bool = False) -> Outcome:
        """The user said no to a decision (Esc on "understood as", or anything but yes to a question): nothing
        runs; dialogue and history say so."""
        self.dialogue.receive(message)
        self.dialogue.note(f"{decision.line()}: declined by the user" + (f" ({why})" if why else ""), "refusal")
        text = f"not run: {decision.line()}" + (f"; {why}" if why else "")
        return self._finish(Outcome(message, "cancelled", text), message, emit=emit)

    def act(self, message: str, decision: Decision) -> Outcome:
        """Record the message and do what was decided (a question back, or the command through the guards)."""
        self.dialogue.receive(message)
        if decision.action == "clarify":
            self.dialogue.ask(decision.question or decision.reason)
            return self._finish(Outcome(message, "ok", decision.question or decision.reason), message,
                                f"asked: {decision.question}")
        try:
            command = parse(decision.command or "")
        except CommandError as exc:
            self.dialogue.note(f"{decision.line()}: {exc}", "refusal")
            return self._finish(Outcome(message, "error", f"understood as `{decision.command}`, but {exc}"), message)
        refusal = self.desk.workflow.refusal(command.name, **self.desk._guard_context(command))
        if refusal is not None:
            text = f"understood as `{decision.command}`, but {refusal}; nothing ran"
            self.dialogue.note(text, "refusal")
            return self._finish(Outcome(message, "refused", text), message)
        self.dialogue.note(decision.line())
        self._sync()
        self.desk._persist((message, self.desk.state, decision.line()))
        self.desk.answer_scope = decision.scope if decision.action == "answer" else None
        try:
            return self.desk.execute(command)
        finally:
            self.desk.answer_scope = None

    def _beside(self, message: str, decision: Decision) -> Outcome:
        """A navigation or read-only command while other work runs: answered at once, the work goes on."""
        from paperdesk.core.handlers import HANDLERS

        self.dialogue.receive(message)
        try:
            command = parse(decision.command or "")
        except CommandError as exc:
            return self._finish(Outcome(message, "error", f"understood as `{decision.command}`, but {exc}"), message)
        refusal = self.desk.workflow.refusal(command.name, **self.desk._guard_context(command))
        if refusal is not None:
            text = f"understood as `{decision.command}`, but {refusal}; nothing ran"
            self.dialogue.note(text, "refusal")
            return self._finish(Outcome(message, "refused", text), message, emit=False)
        self.dialogue.note(decision.line())
        try:
            outcome = HANDLERS[command.name](self.desk, command)
        except Exception as exc:  # noqa: BLE001 - a side answer must never disturb the running work
            outcome = Outcome(command.raw, "error", f"{command.name}: {exc}")
        self._sync()
        self._record(message, f"{decision.line()}; answered beside the running work: {outcome.status}"
                              + (f": {outcome.message.splitlines()[0][:150]}" if outcome.message else ""))
        return outcome

    def _finish(self, outcome: Outcome, message: str, summary: str = "", emit: bool = True) -> Outcome:
        """Persist the dialogue and a history row for a message that ran no command."""
        self._sync()
        busy = self.desk.busy
        self._record(message, summary or f"{outcome.status}: {outcome.message[:200]}")
        if emit and not busy:
            self.desk.emit(CommandFinished(outcome))
        return outcome

    def _record(self, message: str, summary: str) -> None:
        """The message's history row. While a command runs only the row is written: the session it holds
        is mid-change (that command persists it, dialogue included, when it ends)."""
        if self.desk.busy:
            self.desk.store.add_history(message, self.desk.state or "", summary)
        else:
            self.desk._persist((message, self.desk.state, summary))
