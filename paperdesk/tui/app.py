"""PaperDeskApp: the keyboard-driven workbench over the Desk.

The first screen paints before anything heavy is imported: the Desk (library,
indexes) opens in a worker, then the models load in another. Every command
runs in a thread worker; the Desk's events come back as DeskEvent messages
and only handlers here touch widgets. What may run now is always the
workflow model's answer (check_action, the palette, the command line).

A line travels one way: key -> command line -> one gate -> Desk. Whether typed,
bound to a key, picked in the palette or a pane, or decided by the dispatcher,
it enters line_apply.py, whose gate (line_gate.py) says whether it talks,
waits, is answered beside running work, asks first, interrupts, or runs.

Starting up is in startup.py, the actions the keys bind in workbench_actions.py; this module composes
the workbench and shows what comes back.
"""

from __future__ import annotations

import threading
from pathlib import Path
from typing import TYPE_CHECKING

from textual import on
from textual.app import App, ComposeResult
from textual.containers import Vertical
from textual.widgets import DataTable, Footer, TabbedContent, TabPane
from textual.worker import Worker, WorkerState

from paperdesk.core.config import Settings
from paperdesk.tui.command_line import CommandLine
from paperdesk.tui.keys import APP_BINDINGS
from paperdesk.tui.messages import DeskEvent, PaneSays, WorkerFailed
from paperdesk.tui.palette import WorkflowCommands
from paperdesk.tui.panes.draft import DraftPane
from paperdesk.tui.panes.notes import NotesPane
from paperdesk.tui.panes.reader import ReaderPane
from paperdesk.tui.panes.results import ResultsPane
from paperdesk.tui.keyboard import KeyboardRouting, Workbench
from paperdesk.tui.line_apply import LineEntry
from paperdesk.tui.narrow_layout import NarrowLayout
from paperdesk.tui.reading_actions import ReadingActions
from paperdesk.tui.routing import OutcomeRouter
from paperdesk.tui.startup import StartUp
from paperdesk.tui.status_bar import StatusBar
from paperdesk.tui.talk import TalkController
from paperdesk.tui.theme_choice import ThemeKeeper, choose_theme
from paperdesk.tui.workbench_actions import WorkbenchActions

if TYPE_CHECKING:
    from paperdesk.core.desk.desk import Desk
    from paperdesk.core.desk.preload import ModelPreload


class PaperDeskApp(LineEntry, StartUp, WorkbenchActions, KeyboardRouting, ReadingActions, NarrowLayout, App):
    TITLE = "paperdesk"
    CSS_PATH = Path(__file__).with_name("app.tcss")  # absolute, so subclasses elsewhere find it too
    BINDINGS = APP_BINDINGS
    COMMANDS = {WorkflowCommands}  # the workflow's, Textual's own and the themes, from one provider

    def __init__(self, settings: Settings, desk: "Desk | None" = None, warm_up: bool = True,
                 cursor_blink: bool = True, live_status: bool = True) -> None:
        super().__init__()
        self.cursor_blink = cursor_blink  # off in snapshot tests
        self.live_status = live_status  # the status bar's running clock and token rate; off in snapshot tests
        self.settings = settings
        self.desk: Desk | None = None
        self._given_desk = desk  # tests pass one in; otherwise it opens in a worker
        self._warm_up = warm_up
        self._preloading: threading.Thread | None = None
        self._preload: "ModelPreload | None" = None
        self._busy = False
        self._pending: str | None = None
        self._panes_mounted = False  # the hidden tabs' panes have composed their children (after the first paint)
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
                # The hidden tabs' panes are mounted right after the first paint (StartUp.mount_after_paint).
                yield TabPane("Reader · F5", id="tab-reader")
                yield TabPane("Reports · F6", id="tab-reports")
                yield TabPane("Plan · F7", id="tab-plan")
                yield TabPane("Discussion · F8", id="tab-discussion")
        yield CommandLine(self.completion_candidates, id="command-line")
        yield StatusBar(id="status-bar", live=self.live_status)
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

    # -- what comes back from the Desk and the workers (lines go in through line_apply.py) -----------------

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

    @on(DataTable.RowHighlighted, "#results-table")
    def _result_highlighted(self, event: DataTable.RowHighlighted) -> None:
        desk = self.desk
        number = int(event.row_key.value) if event.row_key.value and event.row_key.value.isdigit() else 0
        if desk is not None and 1 <= number <= len(desk.session.results):
            item = desk.session.results[number - 1]
            if item.in_library and self.screen_stack:  # a highlight that arrives as the app closes its screens
                self.router.follow_notes(item.id)    # has no pane left to follow it

    @on(ReaderPane.PageLoaded)
    def _page_loaded(self, message: ReaderPane.PageLoaded) -> None:
        self.router.follow_notes(message.paper_id)
        if message.reveal:
            self.main.query_one(TabbedContent).active = "tab-reader"
            self.reveal("reader")

    @on(PaneSays)
    def _pane_says(self, message: PaneSays) -> None:
        self.command_line.say(message.text, message.kind)
