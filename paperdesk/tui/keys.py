"""Key bindings of the workbench: each has an id, so users remap them with `[keymap]` in the config.

Workflow keys use modifiers: printable keys typed in a pane are the start of a
command line (see keyboard.py), so single letters stay only where a
pane binds them itself (the reader's n/p/f). Keys avoid what Input and TextArea already use (ctrl+x cut, ctrl+k, ctrl+u ...); the
pane keys are priority bindings because TextArea claims F5 and F6.

Actions that are workflow commands are listed in ACTION_COMMANDS; the app's
check_action asks the workflow model about them, so the footer dims what
cannot run now.
"""

from __future__ import annotations

from textual.binding import Binding

APP_BINDINGS: list[Binding] = [
    Binding("f1", "help", "Help", id="help"),
    Binding("escape", "cancel", "Cancel", id="cancel"),
    Binding("colon,slash", "focus_command", "Command", id="focus_command", key_display=":"),
    Binding("f2", "focus_pane('results')", "Results pane", id="focus_results", show=False, priority=True),
    Binding("f3", "focus_pane('draft')", "Draft pane", id="focus_draft", show=False, priority=True),
    Binding("f4", "focus_pane('notes')", "Notes pane", id="focus_notes", show=False, priority=True),
    Binding("f5", "focus_pane('reader')", "Reader pane", id="focus_reader", show=False, priority=True),
    Binding("f6", "focus_pane('reports')", "Reports pane", id="focus_reports", show=False, priority=True),
    Binding("f7", "focus_pane('plan')", "Plan pane", id="focus_plan", show=False, priority=True),
    # the Discussion pane and the Memory screen
    Binding("f8", "focus_pane('discussion')", "Discussion pane", id="focus_discussion", show=False, priority=True),
    Binding("f10", "memory", "Memory", id="memory", show=False, priority=True),
    Binding("rightsquarebracket", "page(1)", "Next page", id="next_page", key_display="]", show=False),
    Binding("leftsquarebracket", "page(-1)", "Prev page", id="prev_page", key_display="[", show=False),
    # Not single letters: a printable key typed in a pane goes to the command line (keyboard.py).
    # Enter opens the highlighted paper in the reader; ctrl+o (and o inside the reader) opens its PDF outside.
    Binding("ctrl+o", "open_external", "PDF viewer", id="open_external", show=False),
    Binding("f9", "switch_pane", "Switch pane", id="switch_pane", priority=True),
    Binding("ctrl+r", "improve", "Improve", id="improve"),
    Binding("ctrl+s", "workflow('save')", "Save", id="save"),
    Binding("ctrl+b", "abandon", "Abandon", id="abandon"),
    Binding("ctrl+z", "workflow('undo')", "Undo", id="undo", show=False),
    Binding("ctrl+y", "workflow('redo')", "Redo", id="redo", show=False),
    Binding("ctrl+q", "quit", "Quit", id="quit"),
]

# action name -> the workflow command whose availability gates it
ACTION_COMMANDS: dict[str, str] = {
    "improve": "improve",
    "abandon": "abandon",
}

# workflow keys -> their command: pressed while the command is refused, the key says why
REFUSED_KEYS: dict[str, str] = {"ctrl+r": "improve", "ctrl+s": "save", "ctrl+b": "abandon", "ctrl+z": "undo",
                                "ctrl+y": "redo"}


def key_label(key: str) -> str:
    """"ctrl+b" as the footer shows it: "^b"."""
    return "^" + key.removeprefix("ctrl+") if key.startswith("ctrl+") else key


BINDING_IDS = frozenset(b.id for b in APP_BINDINGS if b.id)
