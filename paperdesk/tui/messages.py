"""Messages the app's workers post to the UI thread (workers never touch widgets)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from textual.message import Message

if TYPE_CHECKING:
    from paperdesk.core.desk.desk import Desk


@dataclass
class DeskReady(Message):
    """The library is open and the workflow resumed; commands can run."""

    desk: "Desk"
    model: str


@dataclass
class DeskFailed(Message):
    """The Desk could not start (a bad config, an unreadable library)."""

    error: str


@dataclass
class DeskEvent(Message):
    """One event from the Desk (progress, token, transition, results, finished)."""

    event: Any


@dataclass
class ModelsReady(Message):
    """The embedding and generation models are loaded (or failed to load)."""

    error: str = ""


@dataclass
class WorkerFailed(Message):
    """A pane's worker raised; the app says so in one line."""

    pane: str
    worker: str
    error: str


@dataclass
class ReadonlyAnswered(Message):
    """A read-only command answered beside a running one (help, status, history ...); it changed nothing."""

    outcome: Any


@dataclass
class PaneSays(Message):
    """A pane has something to tell the user (a page that cannot be shown, notes a full disk keeps);
    the app shows it in the command line's message line."""

    text: str
    kind: str = "error"  # info, error or busy, as CommandLine.say takes them
