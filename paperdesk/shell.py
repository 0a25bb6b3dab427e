"""`paperdesk shell`: a line-oriented face over the Desk.

Interactive on a terminal (prompt, readline history and completion), plain
line by line when piped: `paperdesk shell < script.txt` runs the script and
exits 0, or 1 as soon as a command is refused or fails (`--keep-going` runs
on). Ctrl-C cancels the running command and keeps the shell; so does a line
typed while it runs that needs the desk for new work (see shell_live.py).
"""

from __future__ import annotations

import sys
import threading
from pathlib import Path
from typing import Any, TextIO

from paperdesk.core.config import Settings
from paperdesk.console import ProgressLine, clean_line, stream_shows
from paperdesk.core.commands.parse import command_names
from paperdesk.core.desk.desk import Desk
from paperdesk.core.dispatch.talk import Understood
from paperdesk.core.commands.views import (
    CommandStarted,
    DiscussionProgress,
    DraftView,
    GenerationStarted,
    Outcome,
    ProgressUpdated,
    StateChanged,
    TokenStreamed,
)
from paperdesk.shell_live import Next, ShellInput, own_stream, run_with_input
from paperdesk.shell_outcomes import ask_yes, declined, failed_outcome
from paperdesk.shell_plan_edit import edit_in_editor, is_plan_edit
from paperdesk.text_views import render


class ShellPrinter:
    """Turns Desk events and outcomes into text on stdout/stderr."""

    def __init__(self, out: TextIO, err: TextIO) -> None:
        self.out, self.err = out, err
        self.color = out.isatty()
        self.progress = ProgressLine(err)
        self.streamed = False
        self.streamed_text: list[str] = []
        self.at_line_start = True
        self.beside_failed = False  # a line answered beside running work was refused or failed
        self._lock = threading.Lock()

    def on_event(self, event: Any) -> None:
        with self._lock:
            if isinstance(event, CommandStarted):
                self.streamed = False
                self.streamed_text = []
            elif isinstance(event, ProgressUpdated) and not self.streamed:
                self.progress(event.progress)  # once tokens stream, they are the progress
            elif isinstance(event, GenerationStarted):
                self.progress.close()
                self.streamed = True
            elif isinstance(event, TokenStreamed):
                self.streamed_text.append(event.text)
                self.out.write(event.text)
                self.out.flush()
                self.at_line_start = event.text.endswith("\n")
            elif isinstance(event, Understood):  # free text: what the desk understood, before it runs
                self._line_break()
                self.out.write(f"{event.line}{'  (interrupting)' if event.interrupting else ''}\n")
                self.out.flush()
            elif isinstance(event, DiscussionProgress):  # a discussion streams turn by turn
                from paperdesk.text_discussion import discussion_text

                text = discussion_text(event)
                if text:
                    self.out.write(text)
                    self.out.flush()
                    self.at_line_start = text.endswith("\n")
            elif isinstance(event, StateChanged) and event.source != event.target:
                self._line_break()
                self.out.write(f"[{event.command}: {event.source} -> {event.target}]\n")
                self.out.flush()

    def _line_break(self) -> None:
        if not self.at_line_start:
            self.out.write("\n")
            self.at_line_start = True

    def outcome(self, outcome: Outcome, beside: bool = False) -> None:
        """Print an outcome; `beside`: a line answered while another command runs (its stream is not this)."""
        with self._lock:
            if beside and outcome.status in ("refused", "error"):
                self.beside_failed = True
            self.progress.close()
            self._line_break()
            streamed = self.streamed and isinstance(outcome.view, DraftView) and not beside
            if streamed and outcome.view.kind in ("answer", "report") and not stream_shows(
                    outcome.view.text, "".join(self.streamed_text)):
                # grounding added or removed citations after the stream: show what was stored
                self.out.write(f"\nchecked: {outcome.view.text.strip()}\n")
            if outcome.view is not None:
                text = render(outcome.view, color=self.color, streamed=streamed)
                if text:
                    if streamed:
                        self.out.write("\n")
                    self.out.write(text.rstrip() + "\n")
            if outcome.message:
                if outcome.status in ("refused", "error"):
                    self.err.write(f"{outcome.status}: {outcome.message}\n")
                else:
                    self.out.write(f"[{outcome.message}]\n")
            self.out.flush()
            self.err.flush()

    def notice(self, text: str) -> None:
        with self._lock:
            self._line_break()
            self.out.write(f"[{text}]\n")
            self.out.flush()

    def echo(self, line: str) -> None:
        """A script's line, as it is run (piped input)."""
        with self._lock:
            self._line_break()
            self.out.write(f"> {line}\n")
            self.out.flush()


def run_cancellable(desk: Desk, line: str, printer: ShellPrinter) -> Outcome:
    """Run one command in a worker thread so Ctrl-C can cancel it without leaving the shell."""
    return run_with_input(desk, line, printer, None)[0]


def _say_unsaved_notes(desk: Desk, err: TextIO) -> None:
    """Notes a full disk kept from being written, printed at quit so that they are not lost."""
    for paper_id, text in desk.unsaved_notes.items():
        err.write(f"the disk is still full: the notes of {paper_id} could not be saved; here they are:\n"
                  f"{text}\n--- end of the notes of {paper_id}\n")
    err.flush()


def _setup_readline(history: Path) -> Any:
    try:
        import readline
    except ImportError:  # not every platform has it; the shell works without
        return None
    names = command_names()

    def complete(text: str, state: int) -> str | None:
        buffer = readline.get_line_buffer()
        options = [n + " " for n in names if n.startswith(text)] if " " not in buffer.lstrip() else []
        return options[state] if state < len(options) else None

    readline.set_completer(complete)
    readline.parse_and_bind("tab: complete")
    try:
        readline.read_history_file(history)
    except OSError:
        pass
    readline.set_history_length(1000)
    return readline


def run_shell(settings: Settings, keep_going: bool = False, stdin: TextIO | None = None,
              out: TextIO | None = None, err: TextIO | None = None, desk: Desk | None = None) -> int:
    """Run the shell until quit or end of input; 1 if any command was refused or failed."""
    if stdin is None and hasattr(sys.stdin, "reconfigure"):
        # Undecodable bytes arrive as surrogates and are reported by `clean_line`, never crash a read.
        sys.stdin.reconfigure(errors="surrogateescape")
    given = [s for s in (out, err, sys.stdout, sys.stderr) if s is not None]
    stdin, out, err = stdin or sys.stdin, out or own_stream(sys.stdout), err or own_stream(sys.stderr)
    interactive = stdin.isatty() and out.isatty()
    owned = desk is None
    desk = desk or Desk(settings)
    printer = ShellPrinter(out, err)
    desk.subscribe(printer.on_event)
    history = settings.home / "shell_history"
    readline = _setup_readline(history) if interactive else None
    for notice in desk.notices:
        printer.notice(notice)
    from paperdesk.core.handlers.discussion import resume_notice
    from paperdesk.core.handlers.plan_runs import resume_notice as research_notice

    for note in (resume_notice(desk), research_notice(desk)):
        if note:
            printer.notice(note)
    failed = False
    shell_input = ShellInput(stdin, interactive)
    ask = ask_yes if interactive else None
    typed: Next | None = None  # a line typed during the last command that stopped it: it runs now
    try:
        while True:
            if typed is not None:
                line, asked, typed = typed.line, typed.asked, None
            else:
                read = _read(shell_input, desk)
                if read is None:
                    break
                line, warning = clean_line(read)
                if warning:
                    err.write(warning + "\n")
                    err.flush()
                line, asked = line.strip(), False
                if not line or line.startswith("#"):
                    continue
                if not interactive:
                    printer.echo(line)
            if interactive and not asked:
                kept = declined(desk, line)  # typed abandon and remove ask first, as the TUI does
                if kept:
                    printer.notice(kept)
                    continue
            if is_plan_edit(line):  # the plan as TOML in $EDITOR
                try:
                    outcome = edit_in_editor(desk, line)
                except Exception as exc:  # noqa: BLE001 - the shell outlives any command
                    outcome = failed_outcome(line, exc)
            else:
                outcome, typed = run_with_input(desk, line, printer, shell_input, ask)
            printer.outcome(outcome)
            if outcome.confirm and interactive and typed is None:  # free text that would discard work: y/N
                outcome = run_cancellable(desk, "ask yes" if ask_yes(outcome.confirm) else "ask no", printer)
                printer.outcome(outcome)
            if outcome.status in ("refused", "error") or printer.beside_failed:
                failed, printer.beside_failed = True, False
                if not interactive and not keep_going:
                    err.write("stopping: a command was refused or failed (use --keep-going to run on)\n")
                    break
            if outcome.quit:
                break
    finally:
        if readline is not None:
            try:
                readline.write_history_file(history)
            except OSError:
                pass
        if owned:
            desk.close()
            _say_unsaved_notes(desk, err)
        for stream in (out, err):
            if stream not in given:  # the shell's own duplicates of fds 1 and 2
                _close_quietly(stream)
    return 1 if failed else 0


def _close_quietly(stream: TextIO) -> None:
    try:
        stream.close()
    except OSError:  # a reader that went away (`| head`): nothing more to say
        pass


def _read(shell_input: ShellInput, desk: Desk) -> str | None:
    if not shell_input.interactive:
        return shell_input.read("")
    while True:
        try:
            return shell_input.read(f"paperdesk ({desk.state})> ")
        except KeyboardInterrupt:
            print()  # like a shell: ^C drops the line being typed
        except EOFError:
            print()
            return None
