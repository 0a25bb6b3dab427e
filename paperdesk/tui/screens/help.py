"""HelpScreen: every command, enabled or dimmed with the reason, and the keys."""

from __future__ import annotations

from typing import TYPE_CHECKING, Iterable

from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Static

if TYPE_CHECKING:
    from paperdesk.core.workflow import Availability


class HelpScreen(ModalScreen[None]):
    BINDINGS = [Binding("escape,f1,q", "dismiss", "Close", id="close_help")]

    def __init__(self, rows: Iterable["Availability"], keys: Iterable[tuple[str, str]], state: str) -> None:
        super().__init__()
        self._rows = list(rows)
        self._keys = list(keys)
        self._state = state

    def compose(self) -> ComposeResult:
        commands = Table(box=None, expand=True, show_header=False, padding=(0, 1))
        commands.add_column("usage", no_wrap=True)
        commands.add_column("what")
        for row in self._rows:
            if row.enabled:
                commands.add_row(Text(row.usage, style="bold"), row.summary)
            else:
                reason = row.reason.split(": ", 1)[-1]
                commands.add_row(Text(row.usage, style="dim"), Text(f"{row.summary}\n  disabled: {reason}", style="dim"))
        keys = Table(box=None, show_header=False, padding=(0, 1))
        keys.add_column("key", no_wrap=True)
        keys.add_column("does")
        for key, description in self._keys:
            keys.add_row(Text(key, style="bold"), description)
        with VerticalScroll(id="help-body") as body:
            body.border_title = f"Commands in {self._state} (dimmed: not available now, and why)"
            yield Static(commands, id="help-commands")
            yield Static(Text("Keys", style="bold underline"), id="help-keys-title")
            yield Static(keys, id="help-keys")
            yield Static(Text("Esc, F1 or q closes this help.", style="italic"))
