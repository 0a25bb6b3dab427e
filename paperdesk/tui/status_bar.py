"""StatusBar: workflow state, selected paper, active model, and the progress of long work."""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.text import Text
from textual.widgets import Static

if TYPE_CHECKING:
    from paperdesk.core.progress import Progress


def token_activity(count: int, rate: float) -> str:
    """"generating 9 tokens · 4.2 tok/s"; one token has no rate yet (its time is the prompt's, not generation's)."""
    rate_part = f" · {rate:.1f} tok/s" if count > 1 else ""
    return f"generating {count} token{'s' if count != 1 else ''}{rate_part} · Esc stops"


class StatusBar(Static):
    def __init__(self, **kwargs) -> None:
        super().__init__("", **kwargs)
        self.state = "starting"
        self.selected = "none"
        self.model = "model: …"
        self.mode = ""
        self.activity = "opening the library …"

    def set_workflow(self, state: str, selected: str, mode: str) -> None:
        self.state, self.selected, self.mode = state, selected, mode
        self._render_bar()

    def set_model(self, text: str) -> None:
        self.model = text
        self._render_bar()

    def set_activity(self, text: str) -> None:
        self.activity = text
        self._render_bar()

    def progress(self, p: "Progress") -> None:
        self.set_activity(f"{p.stage} {p.amount}")

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
            head.append(f" {self.activity} ", style="bold")
        if self.mode and self.mode != "online":
            head.append(f"│ {self.mode} ", style="bold")
        bar = head + Text(f"│ {self.selected} │ {self.model}")
        width = self.size.width
        if width and head.cell_len <= width:
            bar.truncate(width, overflow="ellipsis")
            bar.no_wrap = True
        self.update(bar)
