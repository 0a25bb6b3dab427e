"""What a Desk does beside a running command: answer read-only lines, and catch up with the library.

A face asks `interrupts(line)` before it stops running work: read-only commands
(the registry's `readonly` flag: help, status, history, dialogue ...) and lines
that do not even parse never need the desk, so `answer_now` answers them at
once on the caller's thread, without the command lock, events or a state
change. Nor does a command the workflow would refuse: it is checked first, in
the state it would run in (the running command's state, which a stop keeps),
so a refused command never stops work; `answer_now` says why it is refused. `sync_library` brings in papers other processes added or removed, and
never waits for a running command.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from paperdesk.core.commands.parse import SPECS, CommandError, parse
from paperdesk.core.errors import PaperdeskError
from paperdesk.core.commands.views import Outcome

if TYPE_CHECKING:
    import threading

    from paperdesk.core.commands.parse import Command

    from paperdesk.core.desk.library_watch import LibraryWatch

# command -> what "this stops the running ..." calls its work
_RUNNING_WORK = {"summarize": "summary", "add": "summary", "improve": "revision", "sem-search": "search answer",
                 "research": "research report", "find": "arXiv search", "list": "list", "open": "page load",
                 "summary": "summary load"}


class BesideWork:
    """Mixed into Desk: the parts of it that run while (or instead of waiting for) the command lock."""

    _lock: "threading.Lock"
    _command: str
    _closed: bool
    _watch: "LibraryWatch"

    def sync_library(self) -> bool:
        """See papers other processes added or removed: reload the indexes and refresh the results on show.
        Never waits: skipped (False) while a command runs. True when the results changed (and were published)."""
        if self._closed or not self._lock.acquire(blocking=False):
            return False
        try:
            changed = self._watch.catch_up()
            if changed:
                self._refresh_downloaded()
                self._persist()
        finally:
            self._lock.release()
        if changed:
            self.publish_results()
        return changed

    def running(self) -> str:
        """What the running command is doing, as "the running summary" says it; "" when idle."""
        if not self.busy:
            return ""
        name = self._command.lstrip(":").split(" ", 1)[0].lower()
        return _RUNNING_WORK.get(name, name or "command")

    def interrupts(self, line: str) -> bool:
        """Whether `line` needs the desk for new work, and so stops a running command. Read-only commands,
        lines that do not parse and commands the workflow refuses never do: `answer_now` answers them beside
        the running one."""
        try:
            command = parse(line)
        except CommandError:
            return False
        return self.may_stop_for(command)

    def may_stop_for(self, command: "Command") -> bool:
        """Stop first, refuse after: never. Running work may be stopped for `command` only when it needs the
        desk for new work and the workflow allows it in the state it would run in: the running command's state
        now (a stopped command keeps what it has done: the partial draft, the state it reached)."""
        return not SPECS[command.name].readonly and self.refusal(command) is None  # type: ignore[attr-defined]

    def answer_now(self, line: str) -> Outcome:
        """Answer a read-only, malformed or refused line at once, beside any running command: no lock, no
        events, no state change; only its history row is written."""
        from paperdesk.core.handlers import HANDLERS

        try:
            command = parse(line)
        except CommandError as exc:
            outcome = Outcome(line.strip(), "error", str(exc))
        else:
            refusal = None if SPECS[command.name].readonly else self.refusal(command)  # type: ignore[attr-defined]
            if refusal is not None:  # refused in the state it would run in: said now, nothing stops
                outcome = Outcome(command.raw, "refused", refusal)
            elif not SPECS[command.name].readonly:
                raise ValueError(f"{command.name} is not read-only; run it with run()")
            else:
                try:
                    outcome = HANDLERS[command.name](self, command)
                except PaperdeskError as exc:
                    outcome = Outcome(command.raw, "error", str(exc))
        summary = outcome.status if not outcome.message else f"{outcome.status}: {outcome.message.splitlines()[0][:200]}"
        self.store.add_history(outcome.command, self.state, summary)
        return outcome
