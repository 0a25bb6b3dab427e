"""NotesPane: the notes of the paper being summarized, open in the reader, or highlighted in the list,
saved a moment after you stop typing.

Saves go to the Desk's one notes writer, which applies them in the order they
were asked for; the app flushes this pane before it starts any command, so an
edit made before `notes <text>` lands before the append, never after it.
"""

from __future__ import annotations

from concurrent.futures import Future
from dataclasses import dataclass
from typing import Callable

from textual import on
from textual.app import ComposeResult
from textual.message import Message
from textual.timer import Timer
from textual.widgets import Label, TextArea

from paperdesk.core.errors import PaperdeskError
from paperdesk.tui.messages import WorkerFailed
from paperdesk.tui.panes.base import Pane

SaveNotes = Callable[[str, str], "Future[None] | None"]  # (paper id, text) -> the pending write

_NO_PAPER = "notes of the paper you read, pick or summarize"
AUTOSAVE_DELAY = 0.6  # seconds of quiet before an edit is saved


class NotesPane(Pane):
    """Notes are saved through the writer the app passes in (the Desk's)."""

    @dataclass
    class Saved(Message):
        paper_id: str

    def __init__(self, save: SaveNotes, **kwargs) -> None:
        super().__init__(**kwargs)
        self._write = save
        self.paper_id: str | None = None
        self._timer: Timer | None = None
        self._saved = ""  # the text as loaded or last posted for saving

    def on_mount(self) -> None:
        self.border_title, self.border_subtitle = "Notes", "F4"

    def compose(self) -> ComposeResult:
        yield TextArea("", id="notes-text", soft_wrap=True, read_only=True)
        yield Label(_NO_PAPER, id="notes-footer")

    @property
    def editor(self) -> TextArea:
        return self.query_one(TextArea)

    def load(self, paper_id: str | None, title: str, text: str, editable: bool) -> None:
        """Show a paper's notes (attributes down); unsaved edits of the previous paper are flushed first."""
        self.flush()
        self.paper_id = paper_id
        self._saved = text
        self.editor.load_text(text)
        self.editor.read_only = not (editable and paper_id)
        self.border_title = f"Notes: {title}" if paper_id else "Notes"
        footer = "saved as you type" if editable and paper_id else (
            "read only here; list or open <n> to edit notes" if paper_id else _NO_PAPER)
        self.query_one("#notes-footer", Label).update(footer)

    @on(TextArea.Changed)
    def _changed(self, event: TextArea.Changed) -> None:
        event.stop()
        if self.paper_id is None or self.editor.read_only or self.editor.text == self._saved:
            return  # load() fired this, or nothing changed
        if self._timer is not None:
            self._timer.stop()
        self._timer = self.set_timer(AUTOSAVE_DELAY, self.flush)

    def flush(self) -> None:
        """Post the current text for saving if it changed."""
        if self._timer is not None:
            self._timer.stop()
            self._timer = None
        text = self.editor.text
        if self.paper_id and text != self._saved:
            self._saved = text
            self._save(self.paper_id, text)

    def _save(self, paper_id: str, text: str) -> None:
        pending = self._write(paper_id, text)
        if pending is None:
            return

        def done(future: "Future[None]") -> None:  # runs on the writer's thread; messages are thread-safe
            error = future.exception()
            if error is None:
                self.post_message(self.Saved(paper_id))
            else:  # a full disk: the Desk keeps the text and writes it with the next edit, command or quit
                detail = str(error) if isinstance(error, PaperdeskError) else f"{type(error).__name__}: {error}"
                self.post_message(WorkerFailed(self.id or "notes", "notes save", detail))

        pending.add_done_callback(done)
