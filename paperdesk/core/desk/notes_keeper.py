"""Notes that could not be written (a full disk) stay in memory and are written again later.

Every notes write goes through one writer thread (the Desk's). When a write
fails because the disk is full, the whole text the notes should have is kept
here, per paper; the next notes write, the next command and closing the desk
try again, oldest first, so nothing typed is lost once space is freed. While
notes are kept, a later append builds on the kept text, not on the stale one
in the database.
"""

from __future__ import annotations

import threading
from typing import Callable

from paperdesk.core.db.diskspace import is_disk_full
from paperdesk.core.errors import PaperdeskError


class NotesNotSaved(PaperdeskError):
    """The disk is full: the notes are kept in memory and written again later."""


class NotesKeeper:
    """Writes notes through `write(paper_id, text)`; a full disk keeps them for the next try."""

    def __init__(self, write: Callable[[str, str], None], read: Callable[[str], str]) -> None:
        self._write, self._read = write, read
        self._kept: dict[str, str] = {}  # paper id -> the whole notes text not yet on disk
        self._lock = threading.Lock()

    @property
    def kept(self) -> dict[str, str]:
        """Notes not yet written, by paper id (a copy)."""
        with self._lock:
            return dict(self._kept)

    def current(self, paper_id: str) -> str:
        """The notes as they should be: the kept text when there is one, else the stored one."""
        with self._lock:
            if paper_id in self._kept:
                return self._kept[paper_id]
        return self._read(paper_id)

    def set(self, paper_id: str, text: str) -> None:
        """Write a paper's whole notes (after retrying the others); NotesNotSaved when the disk is full."""
        self.retry()
        with self._lock:
            self._kept.pop(paper_id, None)
        self._try(paper_id, text)

    def append(self, paper_id: str, paragraph: str) -> str:
        """Add a paragraph; returns the whole notes. NotesNotSaved (the notes kept) when the disk is full."""
        self.retry()
        old = self.current(paper_id)
        new = f"{old.rstrip()}\n{paragraph.strip()}".strip() if old.strip() else paragraph.strip()
        self._try(paper_id, new)
        return new

    def retry(self) -> list[str]:
        """Write every kept text again; the ids written now. Stops at the first that still does not fit."""
        written = []
        for paper_id, text in self.kept.items():
            try:
                self._write(paper_id, text)
            except Exception as exc:  # noqa: BLE001 - a full disk keeps them; anything else is raised
                if is_disk_full(exc):
                    break
                raise
            with self._lock:
                if self._kept.get(paper_id) == text:
                    del self._kept[paper_id]
            written.append(paper_id)
        return written

    def _try(self, paper_id: str, text: str) -> None:
        try:
            self._write(paper_id, text)
        except Exception as exc:
            if not is_disk_full(exc):
                raise
            with self._lock:
                self._kept[paper_id] = text
            raise NotesNotSaved(
                f"the disk is full: the notes of {paper_id} are not saved yet; they are kept in memory and saved "
                "with the next notes edit, the next command and at quit, once some space is free") from None
