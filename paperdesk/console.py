"""Plain-text helpers shared by the CLI verbs and the shell: progress lines, authors, dates."""

from __future__ import annotations

import sys
import time
from datetime import datetime
from typing import TextIO

from paperdesk.core.progress import Progress


class ProgressLine:
    """Progress on stderr: one rewritten line on a terminal, stage changes otherwise."""

    def __init__(self, stream: TextIO | None = None) -> None:
        self.stream = stream or sys.stderr
        self.tty = self.stream.isatty()
        self.stage = ""
        self.last = 0.0
        self._last_countdown: float | None = None

    def __call__(self, p: Progress) -> None:
        now = time.monotonic()
        new_stage = p.stage != self.stage
        finished = p.total is not None and p.done >= p.total
        if not self.tty:
            if new_stage:
                print(f"{p.stage}...", file=self.stream, flush=True)
            self.stage = p.stage
            return
        if not (new_stage or finished or now - self.last > 0.1):
            return
        self.stage, self.last = p.stage, now
        print(f"\r\033[K{p.stage}: {p.amount}", end="", file=self.stream, flush=True)

    def countdown(self, seconds_left: float, why: str) -> None:
        """A retry wait, counted down: rewritten in place on a terminal, whole seconds otherwise."""
        if seconds_left <= 0:
            self._last_countdown = None
            if self.tty:
                print("\r\033[K", end="", file=self.stream, flush=True)
            return
        text = f"{why}; retrying in {seconds_left:.0f} s (Ctrl-C cancels)"
        if self.tty:
            print(f"\r\033[K{text}", end="", file=self.stream, flush=True)
        elif self._last_countdown is None or self._last_countdown - seconds_left >= 10 or seconds_left < 1.5:
            self._last_countdown = seconds_left  # a log gets a line every 10 s, not every second
            print(text, file=self.stream, flush=True)

    def close(self) -> None:
        if self.tty and self.stage:
            print("\r\033[K", end="", file=self.stream, flush=True)
        self.stage = ""


def date(ts: float) -> str:
    return datetime.fromtimestamp(ts).strftime("%Y-%m-%d")


def authors(names: list[str], limit: int = 3) -> str:
    return ", ".join(names[:limit]) + (" et al." if len(names) > limit else "")


def clean_line(line: str) -> tuple[str, str | None]:
    """The line with invalid UTF-8 (surrogate-escaped bytes) replaced by U+FFFD, and a warning naming them."""
    bad = [ord(ch) - 0xDC00 for ch in line if 0xDC80 <= ord(ch) <= 0xDCFF]
    if not any(0xD800 <= ord(ch) <= 0xDFFF for ch in line):
        return line, None
    shown = " ".join(f"\\x{b:02x}" for b in bad[:8]) + (" ..." if len(bad) > 8 else "")
    fixed = "".join("\ufffd" if 0xD800 <= ord(ch) <= 0xDFFF else ch for ch in line)
    return fixed, f"warning: the line had bytes that are not valid UTF-8 ({shown}); they were read as \ufffd"


def stream_shows(stored: str, streamed: str) -> bool:
    """Whether a reader of the streamed text saw the stored answer as it stands: the same words, or the stored
    text as the ending after a note that withdrew the draft above it. Otherwise the checks changed the answer
    after it streamed (a sentence dropped, a citation moved) and the checked text must be shown."""
    from paperdesk.core.agents.answer import RESTATED, WITHDRAWN

    shown, kept = " ".join(streamed.split()), " ".join(stored.split())
    if shown == kept:
        return True
    if not kept or not shown.endswith(kept):
        return False
    before = shown[: len(shown) - len(kept)]
    return any(" ".join(note.split()) in before for note in (WITHDRAWN, RESTATED))
