"""Building a DispatchContext from what the desk persists: the session JSON, the drafts, history, library.

`from_store` is what `paperdesk route` uses (the saved session, like the
TUI sees it on start); `from_session` is for a live Desk, which already
holds the state and the Session object.
"""

from __future__ import annotations

from typing import Any

from paperdesk.core.dispatch.dialogue import Dialogue
from paperdesk.core.dispatch.types import Citation, DispatchContext, PaperRef
from paperdesk.core.commands.session import Session

HISTORY_LINES = 20
LIBRARY_LIMIT = 5000  # titles only; enough for any personal library, bounded for the pathological one


def library_refs(store: Any, limit: int = LIBRARY_LIMIT) -> list[PaperRef]:
    """Ids and titles of the library's papers (newest first, as `list` shows them)."""
    return [PaperRef(p.id, p.title) for p in store.list_papers(limit=limit)]


def from_session(state: str | None, session: Session, store: Any, drafts: Any,
                 dialogue: Dialogue | None = None, library: list[PaperRef] | None = None) -> DispatchContext:
    """The context for a live desk: its state, results, selection, reader, draft citations and history."""
    selected = None
    if session.selected:
        paper = store.get_paper(session.selected)
        selected = PaperRef(session.selected, paper.title if paper else "")
    draft_kind, citations = None, []
    if session.draft is not None:
        draft_kind = session.draft.kind
        if session.draft.kind in ("answer", "report") and session.draft.draft_id is not None:
            current = drafts.current_draft(session.draft.draft_id)
            for source in current.sources if current else []:
                try:
                    citations.append(Citation(int(source["n"]), str(source["paper_id"]),
                                              str(source.get("title", "")), source.get("page"),
                                              source.get("chunk_id")))
                except (KeyError, TypeError, ValueError):
                    continue  # a malformed stored source must not stop routing
    rows = store.history(HISTORY_LINES)
    history = [row[0] for row in rows]
    # The last command was cancelled (Esc, or a message that interrupted it): "go on" may mean that work.
    interrupted = rows[-1][0] if rows and str(rows[-1][2]).startswith("cancelled") else None
    return DispatchContext(
        state=state or "initial",
        results=[PaperRef(r.id, r.title) for r in session.results],
        results_kind=session.results_kind,
        selected=selected,
        reader=session.reader,
        draft_kind=draft_kind,
        citations=citations,
        history=history,
        library=library if library is not None else library_refs(store),
        dialogue=dialogue,
        resumable=unfinished_research(store),
        interrupted=interrupted,
    )


def unfinished_research(store: Any) -> str | None:
    """The query of the newest research run left unfinished (what `research --resume` would finish), or None."""
    try:
        rows = store.query("SELECT query FROM research_runs WHERE status IN ('IN_PROGRESS', 'CANCELLED') "
                           "ORDER BY id DESC LIMIT 1")
    except Exception:  # noqa: BLE001 - no research has ever run here: the table does not exist yet
        return None
    return str(rows[0][0]) if rows else None


def from_store(store: Any) -> DispatchContext:
    """The context of the saved session (a fresh one when nothing, or something malformed, is stored)."""
    from paperdesk.core.db.desk_store import DeskStore

    drafts = DeskStore(store)
    data = drafts.load_session() or {}
    state, session = Session.from_json(data) if data else (None, Session())
    dialogue = Dialogue.from_json(data.get("dialogue")) if data.get("dialogue") else Dialogue()
    return from_session(state, session, store, drafts, dialogue)
