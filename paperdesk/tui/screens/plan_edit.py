"""PlanEditScreen: `plan edit` in the TUI, the plan as TOML in an editable text area.

ctrl+s checks the text first (the Desk's own check, which changes nothing): an
invalid edit keeps the editor open with the reason, and the cursor on the line
TOML names; a valid one is handed back and run as `plan edit`. Esc closes
without changing anything.
"""

from __future__ import annotations

import re
from typing import Callable

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Label, TextArea

HINT = "the plan is checked when you apply; an invalid edit changes nothing"
_LINE = re.compile(r"\bat line (\d+)(?:, column (\d+))?")


class PlanEditScreen(ModalScreen[str | None]):
    BINDINGS = [
        Binding("ctrl+s", "save", "Apply", id="plan_edit_save", priority=True),
        Binding("escape", "dismiss(None)", "Cancel", id="plan_edit_cancel"),
    ]

    def __init__(self, toml: str, check: Callable[[str], str | None] | None = None) -> None:
        super().__init__()
        self.toml = toml
        self.check = check  # text -> why it is invalid, or None
        self.problem: str | None = None

    def compose(self) -> ComposeResult:
        with Vertical(id="plan-edit") as box:
            box.border_title = "Edit the plan (TOML) · ctrl+s applies · Esc cancels"
            yield TextArea(self.toml, id="plan-edit-text")
            yield Label(HINT, id="plan-edit-hint", markup=False)

    def on_mount(self) -> None:
        self.query_one(TextArea).focus()

    def action_save(self) -> None:
        area = self.query_one(TextArea)
        text = area.text
        if text == self.toml:
            self.dismiss(None)
            return
        self.problem = self.check(text) if self.check is not None else None
        hint = self.query_one("#plan-edit-hint", Label)
        if self.problem is None:
            self.dismiss(text)
            return
        hint.update(f"{self.problem} · fix it and ctrl+s again, or Esc")
        hint.add_class("error")
        where = _LINE.search(self.problem)
        if where:  # TOML says where: put the cursor there
            area.move_cursor((int(where.group(1)) - 1, int(where.group(2) or 1) - 1))
        area.focus()
