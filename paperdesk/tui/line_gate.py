"""The one gate every command line passes on its way from a key to the Desk.

A line comes from the keyboard (typed, a binding, the palette, a pane's key,
Enter on a result), from the dispatcher (a message it decided), from the queue
(a line that waited for the library or for the work it interrupted), or as a
ready-made Command (plan edit's TOML). `decide` looks only at plain facts about
the line and the workbench (gathered in line_apply.py) and answers with one of a
closed set of decisions, with the words the command line shows for it; nothing
here touches Textual or the Desk.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum
from typing import Any

__all__ = ["AskFirst", "Entry", "Facts", "Gate", "GateDecision", "Origin", "decide"]


class Origin(Enum):
    TYPED = "typed"  # from the keyboard: may be a message, and is armed before it stops running work
    DECIDED = "decided"  # the dispatcher's decision for a message: never armed, answered beside by the dispatcher
    QUEUED = "queued"  # waited for the library or for the work it interrupted, or confirmed by a y/n dialog
    COMMAND = "command"  # a ready-made Command: runs only while nothing else runs


class AskFirst(Enum):
    REMOVE = "remove"  # deletes a paper: asked before the line goes anywhere
    ABANDON = "abandon"  # discards the draft: asked when it would run


class Gate(Enum):
    IGNORE = "ignore"  # an empty line
    TALK = "talk"  # free text: the dispatcher decides what it means
    WAIT = "wait"  # the library is not open yet: runs once it is
    BESIDE = "beside"  # read-only, malformed or refused: answered beside the running work
    READER = "reader"  # `open` beside the work: the reader shows the page, nothing stops
    ARM = "arm"  # would stop the running work: said, and the line waits for a second Enter
    INTERRUPT = "interrupt"  # the second Enter: cancel the running work, then run the line
    CONFIRM = "confirm"  # discards something: the y/n dialog first
    REFUSE = "refuse"  # a ready-made command while another runs (or before the library opens)
    RUN = "run"


@dataclass(frozen=True)
class Entry:
    """A line on its way to the Desk, with where it came from."""

    line: str
    origin: Origin = Origin.TYPED
    confirmed: bool = False  # a y/n dialog already said yes to it
    message: str = ""  # DECIDED: the message the dispatcher answers beside running work
    decision: Any = None  # DECIDED: the dispatcher's decision (whether it interrupts)
    command: Any = None  # COMMAND: the ready-made Command


@dataclass(frozen=True)
class Facts:
    """What the gate needs to know about a line and the workbench now."""

    origin: Origin = Origin.TYPED
    desk_open: bool = True
    busy: bool = False  # a command runs
    running: str = ""  # what it is doing, as "the running summary" says it
    label: str = ""  # how the line is named in messages ("" names it by itself)
    is_message: bool = False  # free text, not a command word
    interrupts: bool = False  # it needs the desk for new work, so it would stop the running command
    armed: bool = False  # the same line was already armed by a first Enter
    reader_page: tuple[str, int] | None = None  # an `open` the reader can show beside the work
    asks_first: AskFirst | None = None
    confirmed: bool = False


@dataclass(frozen=True)
class GateDecision:
    gate: Gate
    say: str = ""  # what the command line shows ("" says nothing here)
    kind: str = "info"  # info or busy
    asks: AskFirst | None = None  # CONFIRM: which question


WAIT_FOR_WORK = "wait for the running command to finish (Esc cancels it)"


def decide(line: str, facts: Facts) -> GateDecision:
    """Where `line` goes now. The order is the rule: ask before deleting, talk, wait for the library, then beside
    running work (answered, shown by the reader, armed, interrupting), then ask before discarding, then run."""
    line = line.strip()
    name = facts.label or line
    if not line:
        return GateDecision(Gate.IGNORE)
    if facts.origin is Origin.COMMAND:
        if not facts.desk_open or facts.busy:
            return GateDecision(Gate.REFUSE, WAIT_FOR_WORK, "busy")
        return GateDecision(Gate.RUN, f"running {name} …", "busy")
    typed = facts.origin is Origin.TYPED
    if typed and facts.asks_first is AskFirst.REMOVE and not facts.confirmed:
        return GateDecision(Gate.CONFIRM, asks=AskFirst.REMOVE)
    if typed and facts.is_message and facts.desk_open:
        return GateDecision(Gate.TALK)
    if not facts.desk_open:
        return GateDecision(Gate.WAIT, f"{line} will run when the library is open …", "busy")
    if facts.busy:
        if not facts.interrupts:
            return GateDecision(Gate.BESIDE)
        if typed and facts.reader_page is not None:
            return GateDecision(Gate.READER, f"{line}: in the reader; the running {facts.running} goes on")
        if typed and not facts.armed:
            return GateDecision(Gate.ARM, f"this stops the running {facts.running or 'command'}: "
                                          "Enter to go on, Esc stops it, or edit the line", "busy")
        return GateDecision(Gate.INTERRUPT, f"interrupting to run {name} …", "busy")
    if facts.asks_first is AskFirst.ABANDON and not facts.confirmed:
        return GateDecision(Gate.CONFIRM, asks=AskFirst.ABANDON)
    return GateDecision(Gate.RUN, f"running {line} … (Esc cancels)", "busy")
