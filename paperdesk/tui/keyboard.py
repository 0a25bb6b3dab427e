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
- A pane's own key (the reader's `n`, the plan's `a`) acts only when pressed
  alone: it is held for HOLD_S (as vim's timeoutlen holds a mapping's first
  key). A printable key within that time means a word is being typed: both
  start a command line and the pane's action never runs ("research" typed in
  the Plan pane is the command, not r = reject and e = edit). The same key
  again (n n n through the matches), any other key, or the time running out
  runs the held action first. A pane key whose
  action has nothing to do now (dimmed) starts the line at once.
- Text widgets (the command line, the reader's find box, the notes editor) and
  modal screens take their keys as Textual gives them.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

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


HOLD_S = 0.3  # how long a pane's single-letter key waits for a next letter (typing is faster than this)


@dataclass
class HeldKey:
    """A pane key waiting to learn whether it was pressed alone."""

    character: str
    action: str
    node: Any
    timer: Any = None


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

    @property
    def holding_key(self: "PaperDeskApp") -> bool:
        """A pane key waits to learn whether it was pressed alone."""
        return getattr(self, "_held", None) is not None

    async def _route_key(self: "PaperDeskApp", event: events.Key | events.Paste) -> bool:
        """Steer one key before Textual forwards it; True when it was used here."""
        held: HeldKey | None = getattr(self, "_held", None)
        if held is not None:  # the key after a held pane key decides what the held one was
            self._held = None
            held.timer.stop()
            if isinstance(event, events.Key) and event.key == "escape":
                return True  # the pane key is dropped; nothing runs
            repeat = isinstance(event, events.Key) and event.character == held.character  # n n n: steps
            if not repeat and self.screen is self.main and (isinstance(event, events.Paste) or
                                                            event.is_printable and event.character):
                line = self.command_line.input  # typing: the held letter starts the line, this key follows it
                focus_now(line)
                line.insert_text_at_cursor(held.character)
                return False
            await self.run_action(held.action, held.node)  # it was pressed alone: act, then route this key
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
        if not active.enabled:
            focus_now(line)  # nothing for the key to do here now: it starts a command line
            return False
        held = HeldKey(event.character, active.binding.action, active.node)
        held.timer = self.set_timer(HOLD_S, lambda: self._release_held(held))
        self._held = held
        return True

    async def _release_held(self: "PaperDeskApp", held: HeldKey) -> None:
        """No key followed in time: the pane key was pressed alone, so its action runs."""
        if getattr(self, "_held", None) is held:
            self._held = None
            await self.run_action(held.action, held.node)

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
