"""PlanEditScreen (issue 14): `plan edit` in the TUI, the plan as TOML in an editable text area.

ctrl+s hands the text back (the Desk validates it: an invalid edit is refused
with the reason and the plan stays as it was); Esc closes without changing anything.
"""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Label, TextArea


class PlanEditScreen(ModalScreen[str | None]):
    BINDINGS = [
        Binding("ctrl+s", "save", "Apply", id="plan_edit_save", priority=True),
        Binding("escape", "dismiss(None)", "Cancel", id="plan_edit_cancel"),
    ]

    def __init__(self, toml: str) -> None:
        super().__init__()
        self.toml = toml

    def compose(self) -> ComposeResult:
        with Vertical(id="plan-edit") as box:
            box.border_title = "Edit the plan (TOML) · ctrl+s applies · Esc cancels"
            yield TextArea(self.toml, id="plan-edit-text")
            yield Label("the plan is checked when you apply; an invalid edit changes nothing", id="plan-edit-hint")

    def on_mount(self) -> None:
        self.query_one(TextArea).focus()

    def action_save(self) -> None:
        text = self.query_one(TextArea).text
        self.dismiss(None if text == self.toml else text)
