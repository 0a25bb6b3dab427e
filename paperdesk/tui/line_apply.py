"""Every command line's way to the Desk: gather the facts, ask the gate (line_gate.py), do what it decided.

Lines enter here from the command line's Enter, a binding, the palette, the Plan pane's keys, Enter on a
result, the dispatcher's decision (talk.py), the queue and plan edit's ready-made Command; each goes through
`enter` once, and only `_apply` starts, queues, arms, interrupts or answers beside.

A mixin of PaperDeskApp, kept out of app.py. Handlers are named on_<message> (Textual finds those along the
class's MRO).
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING

from textual import work
from textual.widgets import Input

from paperdesk.core.commands.registry import enter_command
from paperdesk.tui.command_gate import asks_first, question, reader_page
from paperdesk.tui.line_gate import AskFirst, Entry, Facts, Gate, GateDecision, Origin, decide
from paperdesk.tui.messages import ReadonlyAnswered
from paperdesk.tui.panes.notes import NotesPane
from paperdesk.tui.panes.plan import PlanPane
from paperdesk.tui.panes.reader import ReaderPane
from paperdesk.tui.panes.results import ResultsPane
from paperdesk.tui.screens.confirm import ConfirmScreen
from paperdesk.tui.talk import BesideDone, Decided, message_of

if TYPE_CHECKING:
    from paperdesk.tui.app import PaperDeskApp


class LineEntry:
    def submit(self: "PaperDeskApp", line: str, confirmed: bool = False) -> None:
        """A line from the keyboard (typed, a binding, the palette, a pane's key), like Enter on the command line."""
        self.enter(Entry(line, Origin.TYPED, confirmed=confirmed))

    def submit_command(self: "PaperDeskApp", command: object) -> None:
        """A ready-made Command (e.g. plan edit with the edited TOML): runs while nothing else runs."""
        self.enter(Entry(str(command), Origin.COMMAND, command=command))

    def enter(self: "PaperDeskApp", entry: Entry) -> None:
        facts = self.line_facts(entry)
        self._apply(entry, facts, decide(entry.line, facts))

    def line_facts(self: "PaperDeskApp", entry: Entry) -> Facts:
        """What the gate needs to know about `entry` now (the Desk is asked only what the gate will read)."""
        desk, line, origin = self.desk, entry.line.strip(), entry.origin
        if origin is Origin.COMMAND:
            return Facts(origin, desk_open=desk is not None, busy=self._busy, label=line)
        is_message = origin is Origin.TYPED and message_of(line) is not None
        if desk is None:
            return Facts(origin, desk_open=False, is_message=is_message, confirmed=entry.confirmed)
        facts = Facts(origin, busy=self._busy, is_message=is_message, asks_first=asks_first(desk, line),
                      confirmed=entry.confirmed)
        if not self._busy:
            return facts
        if origin is Origin.DECIDED:
            from paperdesk.core.dispatch.confirm import asks_first as discards

            decision = entry.decision  # one that discards work interrupts nothing until the user said yes
            interrupts = decision is not None and desk.talk.interrupts(decision) and (
                entry.confirmed or not discards(decision))
            return replace(facts, running=desk.running(), interrupts=interrupts,
                           label=decision.command if decision is not None else "")
        interrupts = desk.interrupts(line)
        return replace(facts, running=desk.running(), interrupts=interrupts, armed=self._armed == line,
                       reader_page=reader_page(desk, line) if interrupts and origin is Origin.TYPED else None)

    def _apply(self: "PaperDeskApp", entry: Entry, facts: Facts, decision: GateDecision) -> None:
        gate, line, desk = decision.gate, entry.line.strip(), self.desk
        if gate is Gate.IGNORE:
            return
        if entry.origin is Origin.TYPED and decision.asks is not AskFirst.REMOVE:
            self.main.query_one(NotesPane).flush()  # an edit typed before this command is written before it runs
            self.command_line.input.remember(line)
            if gate is not Gate.TALK:
                self.talk.decline()  # a command typed instead of Enter/Esc drops a decision that waits for them
                self.command_line.understood("")  # and an earlier "understood as" line is not about this command
        if gate is Gate.TALK:
            self.talk.submit(message_of(line) or line)  # decided in a worker, shown, then entered here again
        elif gate is Gate.WAIT:
            self._pending = line
        elif gate is Gate.BESIDE:
            if entry.origin is Origin.DECIDED:
                self.run_worker(lambda: self.post_message(BesideDone(desk.talk.submit(entry.message))),
                                thread=True, group="dispatch", exit_on_error=False)
            else:
                self.answer_now(line)
        elif gate is Gate.READER:
            assert facts.reader_page is not None
            self.main.query_one(ReaderPane).load_page(*facts.reader_page)
        elif gate is Gate.ARM:  # the line waits in the command line for the second Enter
            self._armed = line
            self.command_line.prefill(line)
        elif gate is Gate.INTERRUPT:  # the line runs once the work has stored its partial result
            self._armed, self._pending = None, line
            desk.cancel()
        elif gate is Gate.CONFIRM:
            self._ask_first(entry, decision.asks)
        elif gate is Gate.RUN:
            self._busy = True
            if entry.origin is Origin.COMMAND:
                self._command_worker = self._execute(entry.command)
            else:
                self._command_worker = self.run_command(line)
        if decision.say:
            self.command_line.say(decision.say, decision.kind)

    def _ask_first(self: "PaperDeskApp", entry: Entry, asks: AskFirst | None) -> None:
        """The y/n dialog before a line deletes or discards; yes enters the line again, confirmed."""
        assert self.desk is not None and asks is not None
        if asks is AskFirst.REMOVE:
            again, no = replace(entry, confirmed=True), "nothing removed"
        else:
            again = Entry(entry.line, Origin.QUEUED, confirmed=True)
            no = "abandon: nothing discarded; the draft is kept"
        self.push_screen(ConfirmScreen(question(self.desk, entry.line.strip(), asks)),
                         lambda yes: self.enter(again) if yes else self.command_line.say(no))

    @work(thread=True, group="readonly", exit_on_error=False)
    def answer_now(self: "PaperDeskApp", line: str) -> None:
        """A read-only line while a command runs: answered beside it, never interrupting it."""
        assert self.desk is not None
        self.post_message(ReadonlyAnswered(self.desk.answer_now(line)))

    @work(thread=True, group="command", exit_on_error=False)
    def run_command(self: "PaperDeskApp", line: str) -> None:
        assert self.desk is not None
        self.desk.run(line)  # the outcome comes back as a CommandFinished event

    @work(thread=True, group="command", exit_on_error=False)
    def _execute(self: "PaperDeskApp", command: object) -> None:
        assert self.desk is not None
        self.desk.execute(command)  # type: ignore[arg-type]

    def command_finished(self: "PaperDeskApp") -> None:
        """Called by the router once a command's outcome is shown; a line that waited for it goes on now."""
        self._busy = False
        self._armed = None
        self.refresh_bindings()
        if self._pending and self.desk is not None:
            line, self._pending = self._pending, None
            self.enter(Entry(line, Origin.QUEUED))

    # -- where lines come from -------------------------------------------------------------------------

    def on_input_submitted(self: "PaperDeskApp", event: Input.Submitted) -> None:
        if event.input.id != "command-input":
            return
        if not event.value.strip() and self.talk.confirm():
            return
        event.input.value = ""
        self.submit(event.value)

    def on_results_pane_chosen(self: "PaperDeskApp", message: ResultsPane.Chosen) -> None:
        command = enter_command(self.desk.state) if self.desk else None
        if command is None:
            self.command_line.say("no command picks a result here; find, list or sem-search first", "error")
            return
        self.submit(f"{command} {message.number}")

    def on_plan_pane_run(self: "PaperDeskApp", message: PlanPane.Run) -> None:
        """The Plan pane's keys run workflow commands; `plan edit` comes back as a Command."""
        if message.prefill:
            self.command_line.prefill(message.line)
        else:
            self.submit(message.line)

    def on_decided(self: "PaperDeskApp", message: Decided) -> None:
        self.talk.decided(message.message, message.decision)

    def on_beside_done(self: "PaperDeskApp", message: BesideDone) -> None:
        self.router.beside(message.outcome)

    def on_readonly_answered(self: "PaperDeskApp", message: ReadonlyAnswered) -> None:
        if self.desk is not None and not self.desk.closed:
            self.router.show_readonly(message.outcome)
