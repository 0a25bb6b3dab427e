"""Below 100 columns one pane takes the screen: results, notes, or the draft/reader/reports tabs; F9 switches.

At 80x24 the side-by-side layout left the results 3 papers tall with 20-character titles and the reader
38 columns wide. Narrow, each pane gets the full width; focusing a pane (F2-F6) or a command that shows
a draft, a page or results brings its pane to the front. A mixin of PaperDeskApp.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual import events

from paperdesk.tui.keyboard import focus_now

if TYPE_CHECKING:
    from paperdesk.tui.app import PaperDeskApp

NARROW_BELOW = 100  # columns
PANES = ("results", "notes", "work")  # work: the Draft / Reader / Reports tabs
PANE_OF = {"results": "results", "notes": "notes", "draft": "work", "reader": "work", "reports": "work"}
FOCUS_OF = {"results": "#results-table", "notes": "#notes-text"}


class NarrowLayout:
    narrow_pane = "results"

    _width: int | None = None  # from the last Resize: App.size may not have caught up when it arrives

    @property
    def narrow(self: "PaperDeskApp") -> bool:
        return (self._width or self.size.width) < NARROW_BELOW

    def on_resize(self: "PaperDeskApp", event: events.Resize) -> None:
        self._width = event.size.width
        self.apply_layout()

    def apply_layout(self: "PaperDeskApp") -> None:
        main = self.main.query_one("#main")
        wanted = {"narrow": self.narrow, **{f"show-{name}": name == self.narrow_pane for name in PANES}}
        changed = {name: on for name, on in wanted.items() if main.has_class(name) != on}
        for name, on in changed.items():
            main.set_class(on, name)
        if changed:  # the footer's keys depend on the layout (F9); an unchanged layout keeps them
            self.refresh_bindings()

    def reveal(self: "PaperDeskApp", pane: str) -> None:
        """Bring a pane ("results", "notes", "draft", "reader", "reports") to the front when narrow."""
        self.narrow_pane = PANE_OF.get(pane, pane)
        self.apply_layout()

    def action_switch_pane(self: "PaperDeskApp") -> None:
        """F9: the next pane takes the screen (narrow terminals only), and gets the focus."""
        self.narrow_pane = PANES[(PANES.index(self.narrow_pane) + 1) % len(PANES)]
        self.apply_layout()
        if self.narrow_pane in FOCUS_OF:
            focus_now(self.main.query_one(FOCUS_OF[self.narrow_pane]))
        else:
            self.action_focus_pane({"tab-draft": "draft", "tab-reader": "reader", "tab-reports": "reports"}.get(
                self.main.query_one("#right").active, "draft"))
