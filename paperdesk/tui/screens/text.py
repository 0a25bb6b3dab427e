"""TextScreen: a read-only page of text (history, status) closed with Esc."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Static


class TextScreen(ModalScreen[None]):
    BINDINGS = [Binding("escape,q", "dismiss", "Close", id="close_text")]

    def __init__(self, title: str, text: str) -> None:
        super().__init__()
        self.title_text = title
        self.text = text

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="text-body") as body:
            body.border_title = self.title_text
            yield Static(self.text, markup=False)
