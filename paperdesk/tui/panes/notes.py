"""NotesPane: the selected paper's notes, saved a moment after you stop typing."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Callable

from textual import on, work
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.message import Message
from textual.timer import Timer
from textual.widgets import Label, TextArea

if TYPE_CHECKING:
    from paperdesk.core.desk_store import DeskStore

AUTOSAVE_DELAY = 0.6  # seconds of quiet before an edit is saved


class NotesPane(Vertical):
    """Notes are saved in a worker through the store the app passes in."""

    @dataclass
    class Saved(Message):
        paper_id: str

    def __init__(self, store: Callable[[], "DeskStore | None"], **kwargs) -> None:
        super().__init__(**kwargs)
        self._store = store
        self.paper_id: str | None = None
        self._timer: Timer | None = None
        self._saved = ""  # the text as loaded or last posted for saving

    def on_mount(self) -> None:
        self.border_title, self.border_subtitle = "Notes", "F4"

    def compose(self) -> ComposeResult:
        yield TextArea("", id="notes-text", soft_wrap=True, read_only=True)
        yield Label("notes belong to the paper being summarized", id="notes-footer")

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
            "read only here; notes are edited while summarizing (summarize <n>)" if paper_id
            else "notes belong to the paper being summarized")
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

    @work(thread=True, group="notes", exit_on_error=False)
    def _save(self, paper_id: str, text: str) -> None:
        store = self._store()
        if store is not None:
            store.set_notes(paper_id, text)
            self.post_message(self.Saved(paper_id))
