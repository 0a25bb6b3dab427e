"""PaperDeskApp: the keyboard-driven workbench over the Desk.

The first screen paints before anything heavy is imported: the Desk (library,
indexes) opens in a worker, then the models load in another. Every command
runs in a thread worker; the Desk's events come back as DeskEvent messages
and only handlers here touch widgets. What may run now is always the
workflow model's answer (check_action, the palette, the command line).

Starting up is in startup.py, the actions the keys bind in workbench_actions.py; this module composes
the workbench and runs commands.
"""

from __future__ import annotations

import threading
from pathlib import Path
from typing import TYPE_CHECKING

from functools import partial

from textual import on, work
from textual.app import App, ComposeResult
from textual.containers import Vertical
from textual.widgets import DataTable, Footer, Input, TabbedContent, TabPane
from textual.worker import Worker, WorkerState

from paperdesk.core.config import Settings
from paperdesk.core.commands.registry import enter_command
from paperdesk.tui.command_gate import abandon_question, asks_first, reader_page
from paperdesk.tui.command_line import CommandLine
from paperdesk.tui.keys import APP_BINDINGS
from paperdesk.tui.messages import DeskEvent, PaneSays, ReadonlyAnswered, WorkerFailed
from paperdesk.tui.palette import WorkflowCommands
from paperdesk.tui.panes.draft import DraftPane
from paperdesk.tui.panes.notes import NotesPane
from paperdesk.tui.panes.plan import PlanPane
from paperdesk.tui.panes.reader import ReaderPane
from paperdesk.tui.panes.results import ResultsPane
from paperdesk.tui.keyboard import KeyboardRouting, Workbench
from paperdesk.tui.narrow_layout import NarrowLayout
from paperdesk.tui.reading_actions import ReadingActions
from paperdesk.tui.routing import OutcomeRouter
from paperdesk.tui.screens.confirm import ConfirmScreen
from paperdesk.tui.startup import StartUp
from paperdesk.tui.status_bar import StatusBar
from paperdesk.tui.talk import BesideDone, Decided, TalkController, message_of
from paperdesk.tui.theme_choice import ThemeCommands, ThemeKeeper, choose_theme
from paperdesk.tui.workbench_actions import WorkbenchActions

if TYPE_CHECKING:
    from paperdesk.core.desk.desk import Desk
    from paperdesk.core.desk.preload import ModelPreload


class PaperDeskApp(StartUp, WorkbenchActions, KeyboardRouting, ReadingActions, NarrowLayout, App):
    TITLE = "paperdesk"
    CSS_PATH = Path(__file__).with_name("app.tcss")  # absolute, so subclasses elsewhere find it too
    BINDINGS = APP_BINDINGS
    COMMANDS = App.COMMANDS | {WorkflowCommands, ThemeCommands}

    def __init__(self, settings: Settings, desk: "Desk | None" = None, warm_up: bool = True,
                 cursor_blink: bool = True) -> None:
        super().__init__()
        self.cursor_blink = cursor_blink  # off in snapshot tests
        self.settings = settings
        self.desk: Desk | None = None
        self._given_desk = desk  # tests pass one in; otherwise it opens in a worker
        self._warm_up = warm_up
        self._preloading: threading.Thread | None = None
        self._preload: "ModelPreload | None" = None
        self._busy = False
        self._pending: str | None = None
        self._armed: str | None = None  # a line that would interrupt the running command, waiting for Enter
        self._command_worker: Worker | None = None
        self.router = OutcomeRouter(self)
        self.talk = TalkController(self)  # free text -> the dispatcher
        self.keymap: dict[str, str] = {}  # binding id -> keys, as applied from the [keymap] settings
        # Chosen before the first style pass: changing the theme after mount restyles every widget.
        self.theme_notices = choose_theme(self)

    @property
    def busy(self) -> bool:
        """A command is running (or a quit is waiting for one to stop)."""
        return self._busy

    # -- layout ----------------------------------------------------------------------------------

    def compose(self) -> ComposeResult:
        # Scheduled before anything is mounted, so it runs right after the first frame is written
        # (the hidden tabs mount after it, and the layout classes below need no second style pass).
        self.call_after_refresh(self._painted)
        with Workbench(id="main", classes=f"show-{self.narrow_pane}"):
            with Vertical(id="left"):
                yield ResultsPane(id="results")
                yield NotesPane(lambda: self.desk, id="notes")
            with TabbedContent(id="right", initial="tab-draft"):
                with TabPane("Draft · F3", id="tab-draft"):
                    yield DraftPane(id="draft")
                # The hidden tabs' panes are mounted right after the first paint (StartUp.mount_hidden_panes).
                yield TabPane("Reader · F5", id="tab-reader")
                yield TabPane("Reports · F6", id="tab-reports")
                yield TabPane("Plan · F7", id="tab-plan")
                yield TabPane("Discussion · F8", id="tab-discussion")
        yield CommandLine(self.completion_candidates, id="command-line")
        yield StatusBar(id="status-bar")
        yield Footer()

    @property
    def main(self):
        """The workbench screen: queries go here, not to a modal on top of it."""
        return self.screen_stack[0]

    @property
    def command_line(self) -> CommandLine:
        return self.main.query_one(CommandLine)

    @property
    def status_bar(self) -> StatusBar:
        return self.main.query_one(StatusBar)

    def on_mount(self) -> None:
        for notice in self.theme_notices:
            self.notify(notice, severity="warning", timeout=8)
        self._apply_keymap()
        self.theme_keeper = ThemeKeeper(self)  # a theme picked from now on is saved for the next start
        self.apply_layout()
        if not self.cursor_blink:
            for widget in self.main.query("Input, TextArea"):
                widget.cursor_blink = False
        self.command_line.input.focus()

    # -- running commands --------------------------------------------------------------------------

    def submit(self, line: str, confirmed: bool = False) -> None:
        """Run a command line. While another runs, read-only (and malformed) lines are answered at once
        beside it; a line that needs the desk asks first, and on a second Enter interrupts it, then runs."""
        line = line.strip()
        if not line:
            return
        if not confirmed and self.asks_first(line):  # remove asks first; it runs on yes
            return
        self.main.query_one(NotesPane).flush()  # an edit typed before this command is written before it runs
        self.command_line.input.remember(line)
        message = message_of(line)
        if message is not None and self.desk is not None:
            self.talk.submit(message)  # decided in a worker, shown, then run (or confirmed first)
            return
        self.talk.decline()  # a command typed instead of Enter/Esc drops a decision that waits for them
        self.command_line.understood("")  # and an earlier "understood as" line is not about this command
        if self.desk is None:
            self._pending = line
            self.command_line.say(f"{line} will run when the library is open …", "busy")
            return
        if self._busy:
            if not self.desk.interrupts(line):
                self.answer_now(line)
                return
            page = reader_page(self.desk, line)
            if page is not None:  # `open` beside the work: the reader loads the page itself, nothing stops
                self.main.query_one(ReaderPane).load_page(*page)
                self.command_line.say(f"{line}: in the reader; the running {self.desk.running()} goes on")
                return
            if self._armed != line:  # say what Enter would stop; the line waits in the command line
                self._armed = line
                self.command_line.prefill(line)
                self.command_line.say(f"this stops the running {self.desk.running() or 'command'}: "
                                      "Enter to go on, Esc stops it, or edit the line", "busy")
                return
            self._armed = None
            self._pending = line
            self.desk.cancel()
            self.command_line.say(f"interrupting to run {line} …", "busy")
            return
        self._start(line)

    def start_line(self, line: str) -> None:
        self._start(line)

    def interrupt_for(self, line: str, note: str) -> None:
        """Cancel the running command; `line` runs once it has stored its partial work."""
        self._pending = line
        if self.desk is not None:
            self.desk.cancel()
        self.command_line.say(note, "busy")

    @on(Decided)
    def _decided(self, message: Decided) -> None:
        self.talk.decided(message.message, message.decision)

    @on(BesideDone)
    def _beside_done(self, message: BesideDone) -> None:
        self.router.beside(message.outcome)

    def _start(self, line: str, confirmed: bool = False) -> None:
        if not confirmed and self.desk is not None and asks_first(self.desk, line):
            self.push_screen(ConfirmScreen(abandon_question(self.desk)), partial(self._abandon_answered, line))
            return
        self._busy = True
        self.command_line.say(f"running {line} … (Esc cancels)", "busy")
        self._command_worker = self.run_command(line)

    def _abandon_answered(self, line: str, yes: bool | None) -> None:
        if yes:
            self._start(line, confirmed=True)
        else:
            self.command_line.say("abandon: nothing discarded; the draft is kept")

    @work(thread=True, group="readonly", exit_on_error=False)
    def answer_now(self, line: str) -> None:
        """A read-only line while a command runs: answered beside it, never interrupting it."""
        assert self.desk is not None
        self.post_message(ReadonlyAnswered(self.desk.answer_now(line)))

    @on(ReadonlyAnswered)
    def _readonly_answered(self, message: ReadonlyAnswered) -> None:
        if self.desk is not None and not self.desk.closed:
            self.router.show_readonly(message.outcome)

    @work(thread=True, group="command", exit_on_error=False)
    def run_command(self, line: str) -> None:
        assert self.desk is not None
        self.desk.run(line)  # the outcome comes back as a CommandFinished event

    def command_finished(self) -> None:
        """Called by the router once a command's outcome is shown."""
        self._busy = False
        self._armed = None
        self.refresh_bindings()
        if self._pending and self.desk is not None:
            line, self._pending = self._pending, None
            self._start(line)

    @on(DeskEvent)
    def _desk_event(self, message: DeskEvent) -> None:
        if self.desk is not None and not self.desk.closed:  # events still queued at quit are dropped
            self.router.event(message.event)

    @on(Worker.StateChanged)
    def _worker_failed(self, event: Worker.StateChanged) -> None:
        if event.state is WorkerState.ERROR:
            if event.worker.group == "command":
                self._busy = False
            self.post_message(WorkerFailed("app", event.worker.name, str(event.worker.error)))

    @on(WorkerFailed)
    def _show_worker_failure(self, message: WorkerFailed) -> None:
        """Every worker failure, the app's or a pane's, reaches the user as a one-line error."""
        first = message.error.splitlines()[0] if message.error else "unknown error"
        self.command_line.say(f"{message.worker} failed: {first}", "error")

    @on(Input.Submitted, "#command-input")
    def _command_submitted(self, event: Input.Submitted) -> None:
        if not event.value.strip() and self.talk.confirm():
            return
        event.input.value = ""
        self.submit(event.value)

    @on(ResultsPane.Chosen)
    def _result_chosen(self, message: ResultsPane.Chosen) -> None:
        command = enter_command(self.desk.state) if self.desk else None
        if command is None:
            self.command_line.say("no command picks a result here; find, list or sem-search first", "error")
            return
        self.submit(f"{command} {message.number}")

    @on(DataTable.RowHighlighted, "#results-table")
    def _result_highlighted(self, event: DataTable.RowHighlighted) -> None:
        desk = self.desk
        number = int(event.row_key.value) if event.row_key.value and event.row_key.value.isdigit() else 0
        if desk is not None and 1 <= number <= len(desk.session.results):
            item = desk.session.results[number - 1]
            if item.in_library and self.screen_stack:  # a highlight that arrives as the app closes its screens
                self.router.follow_notes(item.id)    # has no pane left to follow it

    # the Plan pane's keys run workflow commands; `plan edit` comes back as a Command
    @on(PlanPane.Run)
    def _plan_key(self, message: PlanPane.Run) -> None:
        if message.prefill:
            self.command_line.prefill(message.line)
        else:
            self.submit(message.line)

    def submit_command(self, command: object) -> None:
        """Run a ready-made Command (e.g. plan edit with the edited TOML), like a typed line."""
        if self.desk is None or self._busy:
            self.command_line.say("wait for the running command to finish (Esc cancels it)", "busy")
            return
        self._busy = True
        self.command_line.say(f"running {command} …", "busy")
        self._command_worker = self._execute(command)

    @work(thread=True, group="command", exit_on_error=False)
    def _execute(self, command: object) -> None:
        assert self.desk is not None
        self.desk.execute(command)  # type: ignore[arg-type]

    @on(ReaderPane.PageLoaded)
    def _page_loaded(self, message: ReaderPane.PageLoaded) -> None:
        self.router.follow_notes(message.paper_id)
        if message.reveal:
            self.main.query_one(TabbedContent).active = "tab-reader"
            self.reveal("reader")

    @on(PaneSays)
    def _pane_says(self, message: PaneSays) -> None:
        self.command_line.say(message.text, message.kind)
