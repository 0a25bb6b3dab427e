"""Typing in a pane means typing a command, as in posting and lazygit.

The panes sit in a `Workbench` container. A printable key that reaches it
(no text widget took it) and that no binding of the focused pane or the app
uses moves the focus to the command line and is inserted there, so
`improve quote more` typed with the results focused arrives whole.
"""

from __future__ import annotations

from textual import events
from textual.containers import Horizontal


class Workbench(Horizontal):
    """The panes; printable keys they do not use go to the command line."""

    def on_key(self, event: events.Key) -> None:
        if not (event.is_printable and event.character):
            return
        if event.key in self.screen.active_bindings:  # a pane's own key (the reader's n/p/f, [ and ])
            return
        command_input = self.app.command_line.input  # type: ignore[attr-defined]
        event.stop()
        event.prevent_default()
        command_input.focus()
        command_input.insert_text_at_cursor(event.character)
