"""One handler per command: `handler(desk, command) -> Outcome`, run after the workflow allowed it."""

from __future__ import annotations

from typing import TYPE_CHECKING, Callable

from paperdesk.core.handlers import drafts, meta, new_paper, viewing
from paperdesk.core.views import Outcome

if TYPE_CHECKING:
    from paperdesk.core.commands import Command
    from paperdesk.core.desk import Desk

HANDLERS: dict[str, Callable[["Desk", "Command"], Outcome]] = {
    "find": new_paper.find,
    "summarize": new_paper.summarize,
    "improve": drafts.improve,
    "notes": new_paper.notes,
    "save": drafts.save,
    "abandon": new_paper.abandon,
    "sem-search": drafts.sem_search,
    "research": drafts.research,
    "list": viewing.list_papers,
    "summary": viewing.summary,
    "open": viewing.open_paper,
    "undo": drafts.undo,
    "redo": drafts.redo,
    "help": meta.help_,
    "status": meta.status,
    "history": meta.history,
    "clear": meta.clear,
    "quit": meta.quit_,
}
