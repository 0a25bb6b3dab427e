"""HelpScreen: every command with what it does, dimmed with the reason when it is not available now, and the keys.

Wide, the usage and the description stand side by side; below STACK_BELOW
columns each command takes its own lines (usage, then the description and
the reason wrapped under it), so an 80-column terminal shows all of it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Iterable

from rich.console import Group, RenderableType
from rich.padding import Padding
from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Static

if TYPE_CHECKING:
    from paperdesk.core.commands.workflow import Availability

STACK_BELOW = 110  # terminal columns
USAGE_MAX = 34  # columns of the usage column side by side; a longer usage wraps


def _reason(row: "Availability") -> str:
    return row.reason.split(": ", 1)[-1]


def commands_table(rows: list["Availability"], width: int) -> "RenderableType":
    """The commands, side by side when `width` (the terminal's) allows, else stacked."""
    if width < STACK_BELOW:
        blocks: list[RenderableType] = []
        for row in rows:
            style = "" if row.enabled else "dim"
            what = Text(row.summary, style=style)
            if not row.enabled:
                what.append(f"\nnot now: {_reason(row)}", style="dim italic")
            blocks += [Text(row.usage, style=f"bold {style}".strip()), Padding(what, (0, 0, 0, 4))]
        return Group(*blocks)
    table = Table(box=None, expand=True, show_header=False, padding=(0, 1))
    table.add_column("usage", max_width=USAGE_MAX, overflow="fold")
    table.add_column("what", ratio=1)
    for row in rows:
        if row.enabled:
            table.add_row(Text(row.usage, style="bold"), row.summary)
        else:
            table.add_row(Text(row.usage, style="dim"), Text(f"{row.summary}\n  not now: {_reason(row)}", style="dim"))
    return table


class HelpScreen(ModalScreen[None]):
    BINDINGS = [Binding("escape,f1,q", "dismiss", "Close", id="close_help")]

    def __init__(self, rows: Iterable["Availability"], keys: Iterable[tuple[str, str]], state: str) -> None:
        super().__init__()
        self._rows = list(rows)
        self._keys = list(keys)
        self._state = state

    def compose(self) -> ComposeResult:
        keys = Table(box=None, show_header=False, padding=(0, 1))
        keys.add_column("key", no_wrap=True)
        keys.add_column("does")
        for key, description in self._keys:
            keys.add_row(Text(key, style="bold"), description)
        with VerticalScroll(id="help-body") as body:
            body.border_title = f"Commands in {self._state} (dimmed: not available now, and why)"
            yield Static(commands_table(self._rows, self.app.size.width), id="help-commands")
            yield Static(Text("Keys", style="bold underline"), id="help-keys-title")
            yield Static(keys, id="help-keys")
            yield Static(Text("Esc, F1 or q closes this help.", style="italic"))

    def on_mount(self) -> None:
        self.set_class(self.app.size.width < STACK_BELOW, "narrow")

    def on_resize(self) -> None:
        self.set_class(self.app.size.width < STACK_BELOW, "narrow")
        self.query_one("#help-commands", Static).update(commands_table(self._rows, self.app.size.width))
