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

import copy
import threading
import time
import traceback
from concurrent.futures import Future, ThreadPoolExecutor
from typing import TYPE_CHECKING, Any, Callable

from paperdesk.core.config import Settings
from paperdesk.core.cancel import CancelToken
from paperdesk.core.commands.parse import Command, CommandError, canonical_name, parse
from paperdesk.core.desk.beside import BesideWork
from paperdesk.core.desk.crash_log import CrashLog
from paperdesk.core.db.desk_store import DeskStore
from paperdesk.core.db.diskspace import is_disk_full
from paperdesk.core.desk.library_watch import LibraryWatch
from paperdesk.core.desk.notes_keeper import NotesKeeper
from paperdesk.core.errors import ArxivUnreachableError, CancelledError, PaperdeskError, UnknownPaperError
from paperdesk.core.progress import Progress
from paperdesk.core.commands.session import ResultItem, Session
from paperdesk.core.commands.views import (
    CommandFinished,
    CommandStarted,
    DraftView,
    GenerationStarted,
    Outcome,
    ProgressUpdated,
    ResultsChanged,
    ResultsView,
    StateChanged,
    StatusView,
    TokenStreamed,
    short_title,
)
from paperdesk.core.commands.workflow import WorkflowContext, WorkflowMachine, new_workflow

if TYPE_CHECKING:
    from paperdesk.core.library.library import Library
    from paperdesk.core.llm.backend import Backend
    from paperdesk.core.search.embedder import Embedder
    from paperdesk.core.sources.arxiv import ArxivClient
    from paperdesk.core.db.store import Paper

Listener = Callable[[Any], None]



class _TransitionListener:
    """Receives python-statemachine's after_transition and hands it to the Desk."""

    def __init__(self, desk: "Desk") -> None:
        self._desk = desk

    def after_transition(self, event: Any, source: Any, target: Any) -> None:
        self._desk._transitioned(str(event).replace("_", "-"), source.value, target.value)


class Desk(BesideWork):
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
        self.workflow: WorkflowMachine = new_workflow(self.context, listeners=[_TransitionListener(self)])
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

    # -- running commands ---------------------------------------------------------------------

    def run(self, line: str) -> Outcome:
        """Parse and execute one command line; never raises for user errors.

        A line that does not start with a command word, or `ask <message>`, is a
        message: it goes to the dispatcher (`self.talk`), which shows what it
        understood and runs that through the same guards."""
        word = line.strip().split(" ", 1)[0]
        if word and canonical_name(word) in (None, "ask"):
            message = line.strip()[len(word):].strip() if canonical_name(word) == "ask" else line.strip()
            if message:
                return self.talk.submit(message)
        self.talk.drop_pending()  # a typed command instead of the answer to "... yes to go on?"
        try:
            command = parse(line)
        except CommandError as exc:
            # "summarize the second one": a command word in words the parser cannot read; a sure decision runs
            if self.talk.understands(line):
                return self.talk.submit(line.strip())
            outcome = Outcome(line.strip(), "error", str(exc))
            try:
                self._record(outcome)
            except Exception as record_error:  # a full disk must not hide the parse error
                if not is_disk_full(record_error):
                    raise
            self.emit(CommandFinished(outcome))
            return outcome
        return self.execute(command)

    def execute(self, command: Command) -> Outcome:
        from paperdesk.core.handlers import HANDLERS

        with self._lock:
            if self._notes.kept:  # notes a full disk kept: written now if space was freed
                self._notes_writer.submit(self._retry_notes).result()
            self._token = CancelToken()
            self._command = command.raw or command.name
            self.emit(CommandStarted(self._command))
            refusal = self.workflow.refusal(command.name, **self._guard_context(command))
            if refusal is not None:
                outcome = Outcome(self._command, "refused", refusal)
            else:
                before = self._snapshot()
                outcome = self._guarded(HANDLERS[command.name], command)
                if outcome.status == "error" or outcome.status == "cancelled" and outcome.view is None:
                    self._roll_back(before, command)
            self._token = None
            outcome = self._after(command, outcome)
        self.emit(CommandFinished(outcome))
        return outcome

    def _after(self, command: Command, outcome: Outcome) -> Outcome:
        """Keep the dialogue and the session; on a full disk the command's result stands, with a note."""
        try:
            self.talk.after_command(command.name, outcome)
            self._record(outcome)
        except Exception as exc:
            if not is_disk_full(exc):
                raise
            note = "the disk is full: the session was not saved (it is, with the next command once space is free)"
            outcome.message = f"{outcome.message}; {note}" if outcome.message else note
        return outcome

    def _guarded(self, handler: Callable[["Desk", Command], Outcome], command: Command) -> Outcome:
        name = self._command
        try:
            return handler(self, command)
        except CancelledError:
            return Outcome(name, "cancelled", f"{command.name} cancelled; {self._cancel_note(command)}")
        except ArxivUnreachableError as exc:
            self.context.mark_unreachable()
            self._refresh_downloaded()
            return Outcome(name, "error", f"{exc}. Working offline: your library and the local model still work; "
                                          f"find and downloads are off for {self.context.retry_seconds:g} s")
        except PaperdeskError as exc:
            return Outcome(name, "error", str(exc))
        except Exception as exc:  # a bug must not take the session down; the log has the details
            if is_disk_full(exc):
                return Outcome(name, "error", f"the disk is full ({exc}): {command.name} could not store its work; "
                                              "free some space and try again")
            where = self._crash_log.write(name, traceback.format_exc())
            return Outcome(name, "error", f"internal error in {command.name}: {type(exc).__name__}: {exc} "
                                          f"({where}); your library and drafts are unchanged")

    def _snapshot(self) -> tuple[str, Session, int]:
        newest = self.store.query("SELECT COALESCE(MAX(id), 0) FROM drafts")[0][0]
        return self.state, copy.deepcopy(self.session), newest

    def _roll_back(self, before: tuple[str, Session, int], command: Command) -> None:
        """Put back the session and state a failed command started from; drop the empty drafts it made."""
        state, session, newest = before
        for item in session.results:  # a download that finished before the failure stays in the library
            item.in_library = item.in_library or self.paper_in_library(item.id)
        results_changed = session.results != self.session.results
        self.session = session
        self.store.drafts.drop_empty_after(newest)
        if self.state != state:
            current = self.state
            self.context.state = state
            self.workflow = new_workflow(self.context, listeners=[_TransitionListener(self)])
            self.emit(StateChanged(current, state, command.name))
        self._refresh_downloaded()
        if results_changed:
            self.publish_results()

    def _cancel_note(self, command: Command) -> str:
        if command.name == "summarize" and self.state == "select-new":
            return "nothing was added"
        runs = command.name == "build" or command.name == "research" and (
            self.session.mode != "plan" or command.text.strip() == "--resume")
        if runs:  # the tracker keeps the run
            return "the state is unchanged; the run is kept: research --resume finishes it without redoing steps"
        return "the state is unchanged"

    @property
    def cancel_token(self) -> CancelToken:
        """The running command's token (a fresh one when idle)."""
        return self._token or CancelToken()

    def cancel(self) -> bool:
        """Stop the running command (safe from any thread); False when nothing runs."""
        token = self._token
        if token is None:
            return False
        token.cancel()
        return True

    def refusal(self, command: Command) -> str | None:
        """Why `command` (with its own argument, e.g. summarize 2) cannot run now, or None when it can."""
        return self.workflow.refusal(command.name, **self._guard_context(command))

    def _guard_context(self, command: Command) -> dict[str, Any]:
        if command.name == "add":
            return {"local": _names_local_file(command.text)}
        if command.name != "summarize" or command.ref is None:
            return {}
        if command.ref.number is not None:
            n = command.ref.number
            if 1 <= n <= len(self.session.results):
                item = self.session.results[n - 1]
                return {"downloaded": item.in_library, "summarized": self._has_saved_summary(item.id)}
            return {}
        ref = command.ref.paper_id or ""
        return {"downloaded": self.paper_in_library(ref), "summarized": self._has_saved_summary(ref)}

    def _has_saved_summary(self, ref: str) -> bool:
        try:
            paper = self.library.get(ref)
        except PaperdeskError:
            return False
        return any(rev.status == "final" for rev in self.store.revisions(paper.id))

    # -- state ----------------------------------------------------------------------------------

    def transition(self, command: Command, **context: Any) -> None:
        """Move the workflow for a command that has done its work; persisted at once."""
        self.workflow.apply(command.name, **context, **self._guard_context(command))
        self._refresh_downloaded()
        self.persist_session()

    def persist_session(self) -> None:
        """Store the session now; on a full disk it stays in memory and the command's end tries again
        (and says so), so a command that only reads still works."""
        try:
            self._persist()
        except Exception as exc:
            if not is_disk_full(exc):
                raise

    def _transitioned(self, command: str, source: str, target: str) -> None:
        self.emit(StateChanged(source, target, command))

    def publish_results(self) -> None:
        self.emit(ResultsChanged(self.results_view()))

    def results_view(self, page: int = 1) -> ResultsView:
        s = self.session
        return ResultsView(s.results_kind, s.results_query, list(s.results), page)

    def _refresh_downloaded(self) -> None:
        self.context.downloaded = [r.in_library for r in self.session.results]
        draft = self.session.draft
        self.context.report_saved = bool(draft and draft.kind == "report" and draft.draft_id
                                         and self.drafts.is_saved(draft.draft_id))
        self._refresh_plan()

    def _refresh_plan(self) -> None:
        """The plan facts the plan guards read (pending revision, validity, network steps)."""
        from paperdesk.core.handlers.plans import plan_facts

        c = self.context
        c.plan_pending, c.plan_problem, c.plan_network = plan_facts(self)

    def _persist(self, history: tuple[str, str, str] | None = None) -> None:
        self.drafts.save_session(self.session.to_json(self.state), history)

    def _record(self, outcome: Outcome) -> None:
        summary = outcome.status if not outcome.message else f"{outcome.status}: {outcome.message.splitlines()[0][:200]}"
        self._persist((outcome.command, self.state, summary))

    def _resume(self) -> Session:
        data = self.drafts.load_session()
        if not data:
            return Session()
        state, session = Session.from_json(data)
        problem = self._resume_problem(state, session)
        if problem:
            self.notices.append(f"could not resume the last session ({problem}); starting fresh")
            self.context.state = None
            return Session()
        for item in session.results:
            item.in_library = item.in_library or self.paper_in_library(item.id)
        self.context.state = state
        if state and state != "initial":
            self.notices.append(f"resumed in {state}")
        return session

    def _resume_problem(self, state: str | None, session: Session) -> str | None:
        if state in ("draft-summary", "summarized"):
            if not session.selected or self.store.get_paper(session.selected) is None:
                return "the paper being summarized is no longer in the library"
        draft = session.draft
        if draft is not None and draft.paper_id and self.store.get_paper(draft.paper_id) is None:
            return "the summarized paper is gone"
        if draft is not None and draft.draft_id is not None and self.store.drafts.info(draft.draft_id) is None:
            return "its draft is gone"
        if draft is not None and draft.draft_id is None and not draft.paper_id:
            return "its draft is gone"
        return None

    # -- questions faces ask ------------------------------------------------------------------

    def paper_in_library(self, ref: str) -> bool:
        try:
            self.library.get(ref)
        except PaperdeskError:
            return False
        return True

    def selected_paper(self) -> "Paper | None":
        pid = self.session.selected
        return self.store.get_paper(pid) if pid else None

    def resolve(self, command: Command) -> tuple[ResultItem | None, str]:
        """(result item or None, paper id) for a command's <n|id>; out-of-range numbers are errors."""
        ref = command.ref
        assert ref is not None
        if ref.number is None:
            return None, ref.paper_id or ""
        results = self.session.results
        if not results:
            raise CommandError(f"{command.name} {ref.number}: there are no results to pick from; "
                               "run find, list or sem-search first, or give a paper id")
        if not 1 <= ref.number <= len(results):
            raise CommandError(f"{command.name} {ref.number}: no such result; the results are numbered 1-{len(results)}")
        item = results[ref.number - 1]
        return item, item.id

    def library_paper(self, command: Command) -> "Paper":
        item, pid = self.resolve(command)
        try:
            return self.library.get(pid)
        except UnknownPaperError:
            if item is not None:
                raise UnknownPaperError(f"{pid} is not in the library (it was removed); run list again") from None
            raise

    def draft_id(self) -> int | None:
        """The id (in the one draft model) of the session's draft; a summary's is found by its paper."""
        ref = self.session.draft
        if ref is None:
            return None
        if ref.draft_id is None and ref.paper_id:
            return self.store.drafts.summary_of(ref.paper_id)
        return ref.draft_id

    def can_move(self, step: int) -> bool:
        """Whether undo (-1) / redo (+1) has a revision to go to now (palette and keys offer them only then)."""
        draft_id = self.draft_id()
        return draft_id is not None and self.store.drafts.can_move(draft_id, step)

    def draft_view(self) -> DraftView | None:
        """The current draft at its current revision."""
        ref = self.session.draft
        if ref is None:
            return None
        title = ref.query
        if ref.paper_id:
            paper = self.store.get_paper(ref.paper_id)
            title = paper.title if paper else ref.paper_id
        draft_id = self.draft_id()
        current = self.store.drafts.current(draft_id) if draft_id is not None else None
        if current is None:
            return DraftView(ref.kind, title, "", None, "draft", query=ref.query, paper_id=ref.paper_id)
        return DraftView(ref.kind, title, current.text, current.revision, current.status, current.sources,
                         ref.query, ref.paper_id)

    def status(self) -> StatusView:
        paper = self.selected_paper()
        selected = f"{paper.id}  {short_title(paper.title)}" if paper else "none"
        view = self.draft_view()
        return StatusView(self.state, selected, len(self.session.results), view.label if view else "none",
                          self.context.mode, self.session.mode, self.talk.dialogue.user_messages())

    def dialogue_block(self) -> str:
        """The "User dialogue" prompt block for every agent of the cycle ("" when there is none)."""
        return self.talk.prompt_block()


def _names_local_file(text: str) -> bool:
    from paperdesk.core.commands.paper_sources import parse_source

    try:
        return parse_source(text).local
    except PaperdeskError:
        return True  # a bad argument: let the handler say what is wrong, not the offline guard
