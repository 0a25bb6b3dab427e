"""NotesPane: the notes of the paper being summarized, open in the reader, or highlighted in the list,
saved a moment after you stop typing.

Saves go to the Desk's one notes writer, which applies them in the order they
were asked for; the app flushes this pane before it starts any command, so an
edit made before `notes <text>` lands before the append, never after it.

On a full disk the Desk keeps the text in memory (core/desk/notes_keeper.py): the
pane says so, its footer says the notes are not saved yet, and it asks the
Desk to write them again every few seconds until space is free; quitting
writes them too (or prints them, when the disk is still full).
"""

from __future__ import annotations

from concurrent.futures import Future
from dataclasses import dataclass
from functools import partial
from typing import TYPE_CHECKING, Callable

from textual import on
from textual.app import ComposeResult
from textual.message import Message
from textual.timer import Timer
from textual.widgets import Label, Static

from paperdesk.core.errors import PaperdeskError
from paperdesk.core.desk.notes_keeper import NotesNotSaved
from paperdesk.tui.messages import PaneSays, WorkerFailed
from paperdesk.tui.panes.base import Pane

if TYPE_CHECKING:
    from textual.widget import AwaitMount
    from textual.widgets import TextArea

    from paperdesk.core.desk.desk import Desk

_NO_PAPER = "notes of the paper you read, pick or summarize"
_EDITABLE = "saved as you type"
_KEPT = "not saved yet: the disk is full; kept in memory, saved once space is free"
AUTOSAVE_DELAY = 0.6  # seconds of quiet before an edit is saved
RETRY_SECONDS = 2.0  # while notes are kept in memory, how often they are written again


class NotesPane(Pane):
    """Notes are saved through the Desk's notes writer (`desk()` gives the Desk, None while it opens)."""

    @dataclass
    class Saved(Message):
        paper_id: str

    @dataclass
    class _Kept(Message):
        """A save met a full disk: the Desk keeps the text in memory."""

        paper_id: str

    @dataclass
    class _Retried(Message):
        """A retry finished; `kept` are the notes still not written, by paper id."""

        kept: dict[str, str]

    def __init__(self, desk: Callable[[], "Desk | None"], **kwargs) -> None:
        super().__init__(**kwargs)
        self._desk = desk
        self.paper_id: str | None = None
        self._timer: Timer | None = None
        self._retry: Timer | None = None
        self.kept = False  # notes are kept in memory, waiting for space on the disk
        self._saved = ""  # the text as loaded or last posted for saving
        self.border_title, self.border_subtitle = "Notes", "F4"

    def compose(self) -> ComposeResult:
        yield Static("", id="notes-placeholder")  # the editor replaces it right after the first paint
        yield Label(_NO_PAPER, id="notes-footer")

    def mount_editor(self, cursor_blink: bool = True) -> "AwaitMount":
        """Put the notes editor in place (TextArea loads here, once the first screen is up)."""
        from textual.widgets import TextArea

        editor = TextArea("", id="notes-text", soft_wrap=True, read_only=True)
        editor.cursor_blink = cursor_blink
        mounted = self.mount(editor, before="#notes-footer")
        self.query("#notes-placeholder").remove()
        return mounted

    @property
    def editor(self) -> "TextArea":
        return self.query_one("#notes-text")  # type: ignore[return-value]

    def load(self, paper_id: str | None, title: str, text: str, editable: bool) -> None:
        """Show a paper's notes (attributes down); unsaved edits of the previous paper are flushed first."""
        self.flush()
        self.paper_id = paper_id
        self._saved = text
        self.editor.load_text(text)
        self.editor.read_only = not (editable and paper_id)
        self.border_title = f"Notes: {title}" if paper_id else "Notes"
        self._footer()

    def _footer(self) -> None:
        editable = self.paper_id and not self.editor.read_only
        footer = _KEPT if self.kept and editable else _EDITABLE if editable else (
            "read only here; list or open <n> to edit notes" if self.paper_id else _NO_PAPER)
        self.query_one("#notes-footer", Label).update(footer)

    def on_text_area_changed(self, event: "TextArea.Changed") -> None:
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
        if not self.paper_id:
            return  # no paper's notes are shown (and before the first paint, no editor yet)
        text = self.editor.text
        if text != self._saved:
            self._saved = text
            self._save(self.paper_id, text)

    def _save(self, paper_id: str, text: str) -> None:
        desk = self._desk()
        if desk is None or desk.closed:
            return
        desk.save_notes(paper_id, text).add_done_callback(partial(self._written, paper_id))

    def _written(self, paper_id: str, future: "Future[None]") -> None:
        """Runs on the notes writer's thread; messages are thread-safe."""
        error = future.exception()
        if error is None:
            self.post_message(self.Saved(paper_id))
        elif isinstance(error, NotesNotSaved):  # a full disk: the Desk keeps the text and writes it later
            self.post_message(self._Kept(paper_id))
        else:
            detail = str(error) if isinstance(error, PaperdeskError) else f"{type(error).__name__}: {error}"
            self.post_message(WorkerFailed(self.id or "notes", "notes save", detail))

    @on(_Kept)
    def _on_kept(self, message: _Kept) -> None:
        message.stop()
        first = not self.kept
        self.kept = True
        self._footer()
        if first:
            self.post_message(PaneSays("the disk is full: your notes are kept in memory and saved as soon as "
                                       "there is space again (at the latest when you quit)"))
        if self._retry is None:
            self._retry = self.set_interval(RETRY_SECONDS, self._try_again)

    def _try_again(self) -> None:
        desk = self._desk()
        if desk is None or desk.closed:
            return
        desk.retry_notes().add_done_callback(
            lambda future: future.exception() is None and self.post_message(self._Retried(future.result())))

    @on(_Retried)
    def _on_retried(self, message: _Retried) -> None:
        message.stop()
        if message.kept or not self.kept:
            return
        self._written_at_last()

    @on(Saved)
    def _on_saved(self, message: Saved) -> None:
        if self.kept:
            desk = self._desk()
            if desk is not None and not desk.kept_notes():
                self._written_at_last()

    def _written_at_last(self) -> None:
        self.kept = False
        if self._retry is not None:
            self._retry.stop()
            self._retry = None
        self._footer()
        self.post_message(PaneSays("there is space on the disk again: the notes kept in memory are saved", "info"))
