"""StatusBar: workflow state, selected paper, active model, and the progress of long work."""

from __future__ import annotations

from typing import TYPE_CHECKING

import re
import time

from rich.text import Text
from textual.widgets import Static

from paperdesk.core.llm.meter import METER

if TYPE_CHECKING:
    from paperdesk.core.llm.meter import Reading
    from paperdesk.core.progress import Progress


def token_activity(count: int, rate: float) -> str:
    """"generating 9 tokens · 4.2 tok/s"; one token has no rate yet (its time is the prompt's, not generation's)."""
    rate_part = f" · {rate:.1f} tok/s" if count > 1 else ""
    return f"generating {count} token{'s' if count != 1 else ''}{rate_part} · Esc stops"


def live_suffix(stage_seconds: float, reading: "Reading | None") -> str:
    """What the work is doing now, refreshed while it runs: the stage's elapsed time and, while the model
    generates, its own token count and rate ("12 s · model 134 tokens, 14.2 tok/s")."""
    parts = [f"{stage_seconds:.0f} s"]
    if reading is not None and reading.live:
        if reading.tokens == 0:
            parts.append(f"model reading the prompt {reading.seconds:.0f} s")
        else:
            rate = f", {reading.rate:.1f} tok/s" if reading.tokens > 1 and reading.rate > 0 else ""
            parts.append(f"model {reading.tokens} token{'s' if reading.tokens != 1 else ''}{rate}")
    return " · ".join(parts)


REFRESH_S = 0.5  # how often a running command's line is redrawn


class StatusBar(Static):
    def __init__(self, live: bool = True, **kwargs) -> None:
        super().__init__("", **kwargs)
        self.live = live  # show the running stage's clock and the model's token rate
        self.state = "starting"
        self.selected = "none"
        self.model = "model: …"
        self.mode = ""
        self.activity = "opening the library …"
        self.since = time.monotonic()  # when the activity last changed: the current stage's start
        self.running = False  # a command runs: the live suffix is shown and refreshed

    def on_mount(self) -> None:
        self.set_interval(REFRESH_S, self._tick)

    def _tick(self) -> None:
        if self.running:
            self._render_bar()

    def set_running(self, running: bool) -> None:
        self.running = running
        self.since = time.monotonic()
        self._render_bar()

    def set_workflow(self, state: str, selected: str, mode: str) -> None:
        self.state, self.selected, self.mode = state, selected, mode
        self._render_bar()

    def set_model(self, text: str) -> None:
        self.model = text
        self._render_bar()

    def set_activity(self, text: str) -> None:
        if _shape(text) != _shape(self.activity):  # a new stage; "embed 30/120" to "embed 60/120" is the same one
            self.since = time.monotonic()
        self.activity = text
        self._render_bar()

    def progress(self, p: "Progress") -> None:
        self.set_activity(f"{p.stage} {p.amount}" + (f" · {p.detail}" if p.detail else ""))

    def tokens(self, count: int, rate: float) -> None:
        self.set_activity(token_activity(count, rate))

    def on_resize(self) -> None:
        self._render_bar()

    def _render_bar(self) -> None:
        """One line; the selected paper and the model are cut first. Only an activity longer than the whole
        line wraps to a second one, so a long progress or problem message is never cut."""
        head = Text()
        head.append(f" {self.state} ", style="bold reverse")
        if self.activity:  # what is happening now comes first, so a long title never hides it
            live = (f" · {live_suffix(time.monotonic() - self.since, METER.read())}" if self.running and self.live
                    else "")
            head.append(f" {self.activity}{live} ", style="bold")
        if self.mode and self.mode != "online":
            head.append(f"│ {self.mode} ", style="bold")
        bar = head + Text(f"│ {self.selected} │ {self.model}")
        width = self.size.width
        if width and head.cell_len <= width:
            bar.truncate(width, overflow="ellipsis")
            bar.no_wrap = True
        self.update(bar)


def _shape(text: str) -> str:
    return re.sub(r"\d+(?:\.\d+)?", "#", text)
