"""The Desk: the headless service every face (shell, TUI) drives.

It owns the workflow state machine and the state variables (results,
selection, draft), runs each command of spec/workflow.md against the core
(arXiv, library, model), emits events while it works (progress, tokens,
transitions, results) and persists the session after every transition, so
quitting or a kill -9 resumes where the last finished step left off.

One command runs at a time; `cancel()` (from any thread) stops the running
one within a token or a chunk. Faces run `run()` in a worker thread. A
command that fails (or is cancelled before it produced anything) changes
nothing: the session and state it started from are put back.

Notes have one writer: edits from a face (`save_notes`) and `notes <text>`
appends go through one queue, in the order they were asked for, so an
append is never overwritten by an older edit.
"""

from __future__ import annotations

import threading
import time
from concurrent.futures import Future, ThreadPoolExecutor
from typing import TYPE_CHECKING, Any, Callable

from paperdesk.core.cancel import CancelToken
from paperdesk.core.commands.views import GenerationStarted, ProgressUpdated, TokenStreamed
from paperdesk.core.commands.workflow import WorkflowContext, WorkflowMachine, new_workflow
from paperdesk.core.config import Settings
from paperdesk.core.db.desk_store import DeskStore
from paperdesk.core.desk.beside import BesideWork
from paperdesk.core.desk.crash_log import CrashLog
from paperdesk.core.desk.library_watch import LibraryWatch
from paperdesk.core.desk.notes_keeper import NotesKeeper
from paperdesk.core.desk.questions import DeskQuestions
from paperdesk.core.desk.running import CommandRunning
from paperdesk.core.desk.session_state import SessionState, TransitionListener
from paperdesk.core.progress import Progress

if TYPE_CHECKING:
    from paperdesk.core.library.library import Library
    from paperdesk.core.llm.backend import Backend
    from paperdesk.core.search.embedder import Embedder
    from paperdesk.core.sources.arxiv import ArxivClient

Listener = Callable[[Any], None]


class Desk(CommandRunning, SessionState, DeskQuestions, BesideWork):
    """The Desk of one library: its parts (made on first use), notes, events; running commands (CommandRunning),
    the session (SessionState), questions faces ask (DeskQuestions) and work beside a command (BesideWork)."""

    def __init__(
        self,
        settings: Settings,
        library: "Library | None" = None,
        backend: "Backend | None" = None,
        arxiv: "ArxivClient | None" = None,
        embedder: "Embedder | None" = None,
    ) -> None:
        from paperdesk.core.library.library import Library

        self.settings = settings
        self.library = library or Library(settings, embedder=embedder)
        self.drafts = DeskStore(self.library.store)
        self._backend = backend
        self._structure: "tuple[Backend | None, str] | None" = None
        self._arxiv = arxiv
        self._memory = None
        self._listeners: list[Listener] = []
        self._lock = threading.Lock()
        self._token: CancelToken | None = None
        self._command = ""
        self.notices: list[str] = list(getattr(self.library, "notices", []))  # e.g. PDFs moved to lost+found
        self._notes_writer = ThreadPoolExecutor(max_workers=1, thread_name_prefix="paperdesk-notes")
        self._notes = NotesKeeper(self.drafts.set_notes, self.drafts.notes)  # a full disk keeps them in memory
        self.unsaved_notes: dict[str, str] = {}  # after close: notes a full disk kept from being written
        self._crash_log = CrashLog(settings.home / "paperdesk.log")
        self._closed = False
        forced = None
        if settings["offline"]:
            source = settings.sources.get("offline", "")
            forced = "started with --offline" if source == "override" else f"offline = true in {source}"
        self.context = WorkflowContext(
            forced_offline=forced,
            remote_model=settings["llm.backend"] == "remote",
            retry_seconds=settings["arxiv.offline_retry_seconds"],
        )
        self.session = self._resume()
        from paperdesk.core.llm.models import writer_notice

        notice = writer_notice(settings)  # the default writer is not installed: say how to get it
        if notice:
            self.notices.append(notice)
        from paperdesk.core.dispatch.talk import Talk

        self.talk = Talk(self)  # free text -> the dispatcher; holds the dialogue since the last act
        self.answer_scope: dict[str, Any] | None = None  # a routed question's papers (direct-paper, citation)
        self.workflow: WorkflowMachine = new_workflow(self.context, listeners=[TransitionListener(self)])
        self._refresh_downloaded()
        self._watch = LibraryWatch(self)

    # -- parts, created on first use ---------------------------------------------------------

    @property
    def backend(self) -> "Backend":
        if self._backend is None:
            from paperdesk.core.llm.factory import make_backend

            self._backend = make_backend(self.settings)
        return self._backend

    @property
    def structure_backend(self) -> "Backend | None":
        """The model for plans, router picks and short JSON (the writer when none is installed); made once."""
        if self._structure is None:
            from paperdesk.core.llm.factory import make_structure_backend

            self._structure = make_structure_backend(self.settings, self.backend)
        return self._structure[0]

    @property
    def structure_name(self) -> str:
        self.structure_backend  # noqa: B018 - made on first use
        assert self._structure is not None
        return self._structure[1]

    @property
    def arxiv(self) -> "ArxivClient":
        if self._arxiv is None:
            from paperdesk.core.sources.arxiv import ArxivClient

            self._arxiv = ArxivClient.from_settings(self.settings)
        return self._arxiv

    @property
    def memory(self):  # type: ignore[no-untyped-def]
        """The library's memory graph, opened on first use."""
        if self._memory is None:
            from paperdesk.core.memory import MemoryGraph

            self._memory = MemoryGraph.for_library(self.library)
        return self._memory

    @property
    def store(self):
        return self.library.store

    @property
    def state(self) -> str:
        return self.workflow.state

    @property
    def busy(self) -> bool:
        return self._lock.locked()

    @property
    def closed(self) -> bool:
        return self._closed

    def close(self) -> None:
        """Finish pending notes writes, then close the library; a second call does nothing."""
        if self._closed:
            return
        self._closed = True
        self._notes_writer.submit(self._retry_notes).result()  # space freed since: written now
        self._notes_writer.shutdown(wait=True)
        self.unsaved_notes = self._notes.kept
        tracker = getattr(self, "_plan_tracker", None)  # the research tracker's own connection
        if tracker is not None:
            tracker.close()
        if self._memory is not None:
            self._memory.close()
        self.library.close()

    # -- notes: one writer ----------------------------------------------------------------------

    def save_notes(self, paper_id: str, text: str) -> "Future[None]":
        """Replace a paper's notes (an editor's text), after every write asked for before it.
        On a full disk the future fails with NotesNotSaved and the text is kept and written again later."""
        return self._notes_writer.submit(self._notes.set, paper_id, text)

    def append_notes(self, paper_id: str, text: str) -> str:
        """Append a paragraph after every write asked for before it; returns the whole notes."""
        return self._notes_writer.submit(self._notes.append, paper_id, text).result()

    def notes(self, paper_id: str) -> str:
        """A paper's notes, with what a full disk has kept in memory."""
        return self._notes.current(paper_id)

    def retry_notes(self) -> "Future[dict[str, str]]":
        """Write the notes a full disk kept again, after every write asked for before; gives those still kept."""
        if self._closed:
            done: Future[dict[str, str]] = Future()
            done.set_result(dict(self.unsaved_notes))
            return done
        return self._notes_writer.submit(lambda: (self._retry_notes(), self._notes.kept)[1])

    def kept_notes(self) -> dict[str, str]:
        """Notes a full disk keeps in memory, not yet written, by paper id."""
        return self._notes.kept

    def _retry_notes(self) -> list[str]:
        try:
            return self._notes.retry()
        except Exception:  # noqa: BLE001 - the next save reports what is wrong
            return []

    # -- events ---------------------------------------------------------------------------------

    def subscribe(self, listener: Listener) -> Callable[[], None]:
        """Call `listener(event)` for every event (from the thread running the command)."""
        self._listeners.append(listener)
        return lambda: self._listeners.remove(listener) if listener in self._listeners else None

    def emit(self, event: Any) -> None:
        for listener in list(self._listeners):
            listener(event)

    def progress(self, p: Progress) -> None:
        self.emit(ProgressUpdated(p))

    def token_stream(self, kind: str, title: str) -> Callable[[str], None]:
        """A token callback that emits GenerationStarted once, then TokenStreamed with the rate."""
        self.emit(GenerationStarted(kind, title))
        start = time.perf_counter()
        count = 0

        def on_token(text: str) -> None:
            nonlocal count
            count += 1
            elapsed = time.perf_counter() - start
            self.emit(TokenStreamed(text, count, count / elapsed if elapsed > 0 else 0.0))

        return on_token
