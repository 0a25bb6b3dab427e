"""How the Desk runs one command: parse a line (or hand a message to the dispatcher), check the
workflow's guards, call the command's handler under the command lock, and turn what goes wrong into an
outcome. A command that fails (or is cancelled before it produced anything) changes nothing: the session
and state it started from are put back. `cancel()` (from any thread) stops the running one."""

from __future__ import annotations

import copy
import re
import traceback
from typing import TYPE_CHECKING, Any, Callable

from paperdesk.core.cancel import CancelToken
from paperdesk.core.commands.parse import Command, CommandError, canonical_name, parse
from paperdesk.core.commands.session import Session
from paperdesk.core.commands.views import CommandFinished, CommandStarted, Outcome, StateChanged
from paperdesk.core.commands.workflow import new_workflow
from paperdesk.core.db.diskspace import is_disk_full
from paperdesk.core.desk.session_state import TransitionListener
from paperdesk.core.errors import ArxivUnreachableError, CancelledError, PaperdeskError

if TYPE_CHECKING:
    from paperdesk.core.desk.desk import Desk


class CommandRunning:
    """Mixed into Desk: running commands, rolling back the failed ones, and the guards' view of a command."""

    _token: CancelToken | None

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
            # "summarize the second one": a command word in words the parser cannot read; a sure decision runs.
            # A line in the command's own form (numbers, ids, options) that fails is a typo to report as such:
            # "open 1 99999999999" must not open page 1 of something.
            if not _typed_form(line) and self.talk.understands(line):
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
            self.workflow = new_workflow(self.context, listeners=[TransitionListener(self)])
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


def _names_local_file(text: str) -> bool:
    from paperdesk.core.commands.paper_sources import parse_source

    try:
        return parse_source(text).local
    except PaperdeskError:
        return True  # a bad argument: let the handler say what is wrong, not the offline guard


_FORM_WORD = re.compile(r"-{1,2}[\w-]+|[\w.:/-]*\d[\w.:/-]*")


def _typed_form(line: str) -> bool:
    """Every word after the command is a number, an id or an option: the line was typed as a command."""
    words = line.split()[1:]
    return bool(words) and all(_FORM_WORD.fullmatch(w) for w in words)
