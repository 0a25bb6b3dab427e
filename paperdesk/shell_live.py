"""The shell's input while work runs: a line typed during a command interrupts it, as in the TUI.

`ShellInput` reads the shell's lines. At a terminal the idle prompt is
readline's `input()`; while a command runs the main thread watches the
terminal (cooked mode: a line arrives whole, on Enter) and takes what is typed.
On a pipe the shell reads the file descriptor itself, unbuffered, so a
line that is already waiting can be told from one that arrives later.

`run_with_input` runs one command in a worker thread (Ctrl-C cancels it). A
line that was already waiting when the command started is type-ahead (a
script, a paste): it runs after, in order. A line that arrives while the
command runs is handled at once: a read-only, malformed or refused command,
and a message the dispatcher answers beside the work (navigation, a question
back), are answered without stopping it (`Desk.answer_now`, `Talk.submit`);
anything that needs the desk for new work cancels the running command (its
partial draft is kept as an interrupted revision) and runs once that command
has put its state down.
"""

from __future__ import annotations

import io
import os
import select
import threading
from typing import TYPE_CHECKING, Any, Callable, NamedTuple, TextIO

from paperdesk.console import clean_line
from paperdesk.core.commands.parse import canonical_name
from paperdesk.core.commands.views import Outcome

if TYPE_CHECKING:
    from paperdesk.core.desk.desk import Desk

NOTHING = ""  # poll: no whole line typed yet (None is the end of the input)


class ShellInput:
    """The shell's lines: `read(prompt)` when idle, `poll()` while a command runs, `waiting()` for type-ahead."""

    def __init__(self, stdin: TextIO, interactive: bool) -> None:
        self.stdin, self.interactive = stdin, interactive
        try:
            self.fd: int | None = stdin.fileno()
        except (AttributeError, OSError, ValueError):  # a StringIO: read line by line, nothing arrives during work
            self.fd = None
        self.raw = not interactive and self.fd is not None  # a pipe or file: read unbuffered, here
        self.encoding = getattr(stdin, "encoding", None) or "utf-8"
        self._buffer = b""
        self.eof = False

    @property
    def live(self) -> bool:
        """Whether a line can still arrive while a command runs."""
        return self.fd is not None and not self.eof

    def read(self, prompt: str) -> str | None:
        """The next line (None at the end of the input); at a terminal with readline's prompt."""
        if self.interactive:
            return input(prompt)  # EOFError and KeyboardInterrupt are the caller's
        if not self.raw:
            line = self.stdin.readline()
            return line if line else None
        return self._line(block=True)

    def waiting(self) -> bool:
        """A line is already there (typed ahead, pasted, the rest of a script): it is not typed during work."""
        if self.fd is None:
            return True
        return b"\n" in self._buffer or self._readable()

    def poll(self) -> str | None:
        """A whole line typed since, without waiting: NOTHING when there is none yet, None at the end of input."""
        if not self.live:
            return NOTHING
        if self.raw:
            return self._line(block=False)
        if not self._readable():
            return NOTHING
        data = os.read(self.fd, 65536)  # type: ignore[arg-type] - a terminal in cooked mode gives one line
        if not data:
            self.eof = True
            return None
        line = data.decode(self.encoding, "surrogateescape")
        _remember(line)
        return line

    def _readable(self) -> bool:
        try:
            return bool(select.select([self.fd], [], [], 0)[0])
        except (OSError, ValueError):
            return False

    def _line(self, block: bool) -> str | None:
        while b"\n" not in self._buffer and not self.eof:
            if not block and not self._readable():
                return NOTHING
            chunk = os.read(self.fd, 65536)  # type: ignore[arg-type]
            if not chunk:
                self.eof = True
            self._buffer += chunk
        if not self._buffer:
            return None
        line, sep, self._buffer = self._buffer.partition(b"\n")
        return (line + sep).decode(self.encoding, "surrogateescape")


def own_stream(stream: TextIO) -> TextIO:
    """`stream` on a duplicate of its file descriptor. Loading a model points fds 1 and 2 at /dev/null for a
    moment (llama.cpp, verbose=False); what the shell prints from this thread meanwhile (an answer beside the
    work, "interrupting ...") must not vanish with the model's log."""
    try:
        fd = os.dup(stream.fileno())
    except (AttributeError, OSError, ValueError):  # a StringIO, pytest's capture: nothing to duplicate
        return stream
    return io.TextIOWrapper(io.FileIO(fd, "w"), encoding=stream.encoding, errors=stream.errors,
                            line_buffering=True, write_through=True)


def _remember(line: str) -> None:
    """A line typed during work goes into readline's history like one typed at the prompt."""
    try:
        import readline
    except ImportError:
        return
    if line.strip():
        readline.add_history(line.strip())


def run_with_input(desk: "Desk", line: str, printer: Any, shell_input: ShellInput | None,
                   ask: Callable[[str], bool] | None = None) -> tuple[Outcome, "Next | None"]:
    """Run one command in a worker thread; Ctrl-C cancels it, and so does a line typed meanwhile that needs
    the desk. Returns the outcome and that line (None when none came): the caller runs it next."""
    box: list[Outcome] = []
    done = threading.Event()

    def work() -> None:
        try:
            box.append(desk.run(line))
        except Exception as exc:  # noqa: BLE001 - the shell outlives any command (a full disk, a bug)
            from paperdesk.shell_outcomes import failed_outcome

            box.append(failed_outcome(line, exc))
        finally:
            done.set()

    watch = shell_input is not None and shell_input.live and not shell_input.waiting()
    after: Next | None = None
    # An Event, not Thread.join: a join interrupted by Ctrl-C can report a running thread as finished.
    threading.Thread(target=work, name="paperdesk-command", daemon=True).start()
    while not done.is_set():
        try:
            done.wait(0.1)
            if watch and not done.is_set():
                typed = shell_input.poll()  # type: ignore[union-attr]
                if typed is None:  # the input ended: the shell stops after this command
                    watch = False
                elif typed:
                    after = _typed(desk, typed, printer, ask, shell_input.interactive)  # type: ignore[union-attr]
                    watch = after is None and shell_input.live  # type: ignore[union-attr]
        except KeyboardInterrupt:
            if desk.cancel():
                printer.err.write("\n^C: cancelling ...\n")
                printer.err.flush()
    return box[0], after


class Next(NamedTuple):
    """A line typed during work that stopped it: it runs next; `asked` when its y/N was already answered."""

    line: str
    asked: bool = False


def _typed(desk: "Desk", raw: str, printer: Any, ask: Callable[[str], bool] | None, interactive: bool
           ) -> Next | None:
    """A line typed while a command runs: answered beside it (None), or it stops the command and is returned."""
    line, warning = clean_line(raw)
    if warning:
        printer.err.write(warning + "\n")
    line = line.strip()
    if not line or line.startswith("#"):
        return None
    if not interactive:
        printer.echo(line)
    word, _, rest = line.partition(" ")
    name = canonical_name(word)
    if name in (None, "ask"):
        return _message(desk, line if name is None else rest.strip(), printer, ask)
    from paperdesk.shell_plan_edit import is_plan_edit

    if not is_plan_edit(line) and not desk.interrupts(line):  # read-only, malformed or refused: said now
        printer.outcome(desk.answer_now(line), beside=True)
        return None
    if ask is not None and name in ("abandon", "remove"):
        from paperdesk.shell_outcomes import declined

        kept = declined(desk, line, ask)
        if kept:
            printer.notice(kept)
            return None
        return _interrupt(desk, line, printer, asked=True)
    return _interrupt(desk, line, printer)


def _message(desk: "Desk", message: str, printer: Any, ask: Callable[[str], bool] | None) -> Next | None:
    """Free text while a command runs: what needs the desk for new work stops it; the rest is answered beside."""
    from paperdesk.core.dispatch.confirm import asks_first, is_yes

    if not message:
        return None
    talk = desk.talk
    pending = talk.pending
    if pending is not None:  # the answer to "... yes to go on?": a yes that needs the desk stops the work first
        if is_yes(message) and talk.interrupts(pending.decision):
            return _interrupt(desk, f"ask {message}", printer, what=pending.decision.line())
    else:
        decision = talk.understand(message)
        if talk.interrupts(decision) and not asks_first(decision):
            return _interrupt(desk, f"ask {message}", printer, what=decision.line())
    if not desk.busy:  # the work ended meanwhile: the message simply runs next
        return Next(f"ask {message}")
    outcome = talk.submit(message)  # answered beside the work; a question back, or "... yes to go on?"
    printer.outcome(outcome, beside=True)
    if outcome.confirm and ask is not None:  # the desk asks before discarding: y/N now, while the work runs
        if ask(outcome.confirm):
            return _interrupt(desk, "ask yes", printer)
        printer.outcome(talk.submit("no"), beside=True)
    return None


def _interrupt(desk: "Desk", line: str, printer: Any, what: str = "", asked: bool = False) -> Next:
    running = desk.running() or "command"
    printer.notice(f"interrupting the running {running} for: {what or line}")
    desk.cancel()
    return Next(line, asked)
