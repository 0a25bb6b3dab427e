"""Where a key goes: typing in a pane means typing a command, and no key of a line is lost or eaten.

Textual forwards each key to the widget focused when the app reads it, and
`Widget.focus()` takes effect only later (a callback queued behind the keys
already read). Keys typed faster than that, or pasted, used to reach the old
pane: the reader's o/f/n/p or the plan's a/r/b/e/d/m fired in the middle of a
command line, and keys typed while nothing was focused were dropped.

So every key is routed here, in the order the app reads them, before Textual
forwards it (`KeyboardRouting.on_event`), and every focus change of the
workbench is made at once (`focus_now`):

- A printable key typed in a pane (or with nothing focused) that no binding of
  the pane or the app uses starts a command line: the command line takes the
  focus at once, so this key and every following one go to the line until
  Enter or Esc, at any speed. A paste in a pane goes to the line too.
- `:` (or `/`) focuses the command line without typing itself.
- A pane's own key (the reader's `n`, the plan's `a`) runs its action at once,
  before a following key could move the focus.
- Text widgets (the command line, the reader's find box, the notes editor) and
  modal screens take their keys as Textual gives them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual import events
from textual.containers import Horizontal
from textual.widget import Widget
from textual.widgets import Input, TabbedContent

if TYPE_CHECKING:
    from paperdesk.tui.app import PaperDeskApp

PANE_TABS = {"draft": "tab-draft", "reader": "tab-reader", "reports": "tab-reports", "plan": "tab-plan",
             "discussion": "tab-discussion"}
PANE_FOCUS = {"results": "#results-table", "notes": "#notes-text", "draft": "#draft-scroll",
              "reader": "#reader-scroll", "reports": "#reports-list", "plan": "#plan",
              "discussion": "#discussion-scroll"}


class Workbench(Horizontal):
    """The panes: printable keys they do not use start a command line (see KeyboardRouting)."""


def focus_now(widget: Widget) -> None:
    """Focus `widget` before the next key is read (Widget.focus() waits behind the keys already read)."""
    widget.screen.set_focus(widget)


def takes_text(widget: Widget | None) -> bool:
    """A widget that types printable keys itself: an input, or a text area that can be edited."""
    from textual.widgets import TextArea  # loaded by the notes editor after the first paint; here only looked up

    return isinstance(widget, Input) or isinstance(widget, TextArea) and not widget.read_only


class KeyboardRouting:
    """A mixin of PaperDeskApp: the routing above, and the actions that move the focus."""

    async def on_event(self: "PaperDeskApp", event: events.Event) -> None:
        if isinstance(event, (events.Key, events.Paste)) and not event.is_forwarded and await self._route_key(event):
            return
        await super().on_event(event)  # type: ignore[misc]

    async def _route_key(self: "PaperDeskApp", event: events.Key | events.Paste) -> bool:
        """Steer one key before Textual forwards it; True when it was used here."""
        screen = self.screen
        if screen is not self.main:
            return False  # a modal screen's keys are its own
        line = self.command_line.input
        focused = screen.focused
        if focused is line or takes_text(focused):
            return False
        if isinstance(event, events.Paste):
            focus_now(line)  # the pasted text goes to the line
            return False
        active = screen.active_bindings.get(event.key)
        if not (event.is_printable and event.character):
            if focused is None and active is None:
                focus_now(line)  # nothing focused (its pane was hidden): the line gets Enter, Backspace ...
            return False
        if active is None:
            focus_now(line)  # a command line starts: this key and the following ones go to it
            return False
        if active.binding.action == "focus_command":
            focus_now(line)
            return True
        if active.binding.priority:
            return False  # Textual runs priority bindings before anything else
        if active.enabled:
            await self.run_action(active.binding.action, active.node)
        return True

    # -- actions that move the focus ----------------------------------------------------------------

    def action_focus_command(self: "PaperDeskApp") -> None:
        focus_now(self.command_line.input)

    def action_focus_pane(self: "PaperDeskApp", name: str) -> None:
        if self.screen is not self.main:  # a modal is open; its keys come first
            return
        self.reveal(name)  # narrow: the pane takes the screen
        if name in PANE_TABS:
            self.main.query_one(TabbedContent).active = PANE_TABS[name]
        focus_now(self.main.query_one(PANE_FOCUS[name]))

    def action_page(self: "PaperDeskApp", delta: int) -> None:
        from paperdesk.tui.panes.reader import ReaderPane
        from paperdesk.tui.panes.results import ResultsPane

        reader = self.main.query_one(ReaderPane)
        results = self.main.query_one(ResultsPane)
        focused = self.focused
        in_reader = focused is not None and reader in focused.ancestors_with_self
        in_results = focused is not None and results in focused.ancestors_with_self
        if in_reader or self.main.query_one(TabbedContent).active == "tab-reader" and not in_results:
            reader.turn_page(delta)
        else:
            results.turn_page(delta)
