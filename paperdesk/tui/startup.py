"""The workbench starting up: the first paint, then the library (the Desk) in one worker and the models
in another; the keymap from the settings; the periodic look for papers other processes added.

A mixin of PaperDeskApp, kept out of app.py so that file stays about running commands.
Handlers are named on_<message> (Textual finds those along the class's MRO).
"""

from __future__ import annotations

import threading
from typing import TYPE_CHECKING

from textual import work

from paperdesk.core.config import Settings
from paperdesk.tui import startup_probe
from paperdesk.tui.keys import BINDING_IDS
from paperdesk.tui.line_gate import Entry, Origin
from paperdesk.tui.messages import DeskEvent, DeskFailed, DeskReady, ModelsReady
from paperdesk.tui.repaint import repaint_whole_screen

if TYPE_CHECKING:
    from paperdesk.tui.app import PaperDeskApp


LIBRARY_SYNC_SECONDS = 2.0  # how often the app looks for papers other processes added (one SQLite pragma)


class StartUp:
    def _start_preload(self: "PaperDeskApp") -> None:
        try:
            from paperdesk.core.desk.preload import ModelPreload

            self._preload = ModelPreload(self.settings)
        except Exception:  # noqa: BLE001 - the Desk then makes its own parts and reports any error itself
            self._preload = None

    def _painted(self: "PaperDeskApp") -> None:
        """The first screen is up; only now start the heavy imports (they would compete for the GIL)."""
        startup_probe.mark("first_paint")
        self.mount_after_paint()
        if self._warm_up and self._given_desk is None:
            # The models load while the library opens (core/desk/preload.py): llama.cpp and ONNX Runtime load
            # outside the GIL, so "models ready" comes close to the slowest load, not the sum of everything.
            self._preloading = threading.Thread(target=self._start_preload, name="paperdesk-preload", daemon=True)
            self._preloading.start()
        if self._given_desk is not None:
            self.post_message(DeskReady(self._given_desk, _model_label(self.settings)))
        else:
            self.open_desk()

    def mount_after_paint(self: "PaperDeskApp") -> None:
        """Once the first screen is up: the Reader, Reports, Plan and Discussion tabs get their panes,
        the Draft pane its Markdown body and the Notes pane its editor."""
        from paperdesk.tui.panes.discussion import DiscussionPane
        from paperdesk.tui.panes.draft import DraftPane
        from paperdesk.tui.panes.notes import NotesPane
        from paperdesk.tui.panes.plan import PlanPane
        from paperdesk.tui.panes.reader import ReaderPane
        from paperdesk.tui.panes.report import ReportsPane

        mounts = [self.main.query_one(DraftPane).mount_body(), self.main.query_one(NotesPane).mount_editor(self.cursor_blink)]
        library = lambda: self.desk.library if self.desk else None  # noqa: E731 - the desk opens later
        for tab, pane in (("#tab-reader", ReaderPane(library, id="reader")), ("#tab-reports", ReportsPane(id="reports")),
                          ("#tab-plan", PlanPane(id="plan")), ("#tab-discussion", DiscussionPane(id="discussion"))):
            mounts.append(self.main.query_one(tab).mount(pane))

        async def mounted() -> None:  # a pane in the DOM may not have composed its children yet
            for mount in mounts:
                await mount
            self._panes_mounted = True

        self.call_next(mounted)

    def _apply_keymap(self: "PaperDeskApp") -> None:
        keymap = {k.split(".", 1)[1]: v for k, v in self.settings.values.items() if k.startswith("keymap.")}
        unknown = sorted(set(keymap) - BINDING_IDS)
        if unknown:
            self.notify(f"keymap: no binding with id {', '.join(unknown)}; ids: {', '.join(sorted(BINDING_IDS))}",
                        severity="warning", timeout=8)
        self.keymap = {k: v for k, v in keymap.items() if k in BINDING_IDS}
        self.set_keymap(self.keymap)

    @work(thread=True, group="startup", exit_on_error=False)
    def open_desk(self: "PaperDeskApp") -> None:
        from paperdesk.core.desk.desk import Desk
        from paperdesk.core.errors import PaperdeskError

        try:
            preload = None
            if self._preloading is not None:
                self._preloading.join()
                preload = self._preload
            desk = Desk(self.settings, backend=preload.backend if preload else None,
                        embedder=preload.embedder if preload else None)
        except PaperdeskError as exc:
            self.post_message(DeskFailed(str(exc)))
            return
        self.post_message(DeskReady(desk, _model_label(self.settings)))

    def on_desk_ready(self: "PaperDeskApp", message: DeskReady) -> None:
        if not self._panes_mounted:
            self.set_timer(0.02, lambda: self.on_desk_ready(message))  # hidden panes mount after the first paint
            return
        desk = self.desk = message.desk
        desk.subscribe(lambda event: self.post_message(DeskEvent(event)))
        startup_probe.mark("desk_ready")
        self.status_bar.set_model(f"model: {message.model}")
        self.router.restore(desk)
        self.refresh_bindings()  # the footer was drawn before the workflow could answer; ask it again
        self.status_bar.set_activity("loading models …" if self._warm_up else "")
        self.command_line.say("; ".join(desk.notices) or "ready: type a command, or F1 for help")
        if self._warm_up:
            self.warm_up_models()
        self.set_interval(LIBRARY_SYNC_SECONDS, self.sync_library)
        if self._pending:
            line, self._pending = self._pending, None
            self.enter(Entry(line, Origin.QUEUED))
        elif self.router.unfinished_discussion(desk):  # a discussion was killed or interrupted: go on with it
            self.enter(Entry("discuss --resume", Origin.QUEUED))
        elif self.router.killed_research(desk):  # a research run was killed mid-run: finish it
            self.enter(Entry("research --resume", Origin.QUEUED))

    @work(thread=True, group="library-sync", exclusive=True, exit_on_error=False)
    def sync_library(self: "PaperDeskApp") -> None:
        """Papers another process added or removed become visible (indexes reloaded, the list redrawn)."""
        desk = self.desk
        if desk is None or desk.closed:
            return
        try:
            desk.sync_library()  # a change comes back as a ResultsChanged event
        except Exception:
            if not desk.closed:  # closing at quit may cut a check short; anything else is reported
                raise

    def on_desk_failed(self: "PaperDeskApp", message: DeskFailed) -> None:
        self.command_line.say(f"cannot open the library: {message.error}", "error")
        self.status_bar.set_activity("not ready")

    @work(thread=True, group="models", exit_on_error=False)
    def warm_up_models(self: "PaperDeskApp") -> None:
        desk = self.desk
        assert desk is not None
        try:
            desk.library.embedder.model()
            desk.backend.warm_up()
        except Exception as exc:  # reported in the status bar; commands will say it again with the fix
            self.post_message(ModelsReady(str(exc)))
            return
        self.post_message(ModelsReady())

    def on_models_ready(self: "PaperDeskApp", message: ModelsReady) -> None:
        startup_probe.mark("models_ready")
        repaint_whole_screen(self)  # frames drawn while llama.cpp loaded were silenced
        if not self._busy:
            self.status_bar.set_activity(f"model problem: {message.error}" if message.error else "ready")


def _model_label(settings: Settings) -> str:
    from paperdesk.core.llm.models import describe_model

    return describe_model(settings)
