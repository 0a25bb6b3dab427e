"""What the Desk keeps beside the library: answer/report drafts, reports, notes, the session.

Answers (sem-search) and reports (research) are drafts with numbered
revisions and an undo/redo cursor, like summaries. `save` copies the current
revision into `reports`. The session (workflow state and the state variables)
is one JSON value written in the same transaction as the command's history
row, so a process killed at any moment resumes from the last finished command.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass, field
from typing import Any

from paperdesk.core.errors import PaperdeskError
from paperdesk.core.store import Store

SESSION_KEY = "session"


@dataclass
class DraftRevision:
    draft_id: int
    kind: str  # "answer" or "report"
    query: str
    revision: int
    text: str
    sources: list[dict[str, Any]] = field(default_factory=list)
    status: str = "draft"  # draft, interrupted
    feedback: str = ""


@dataclass
class Report:
    id: int
    kind: str
    title: str
    query: str
    text: str
    sources: list[dict[str, Any]]
    created: float


class DeskStore:
    """Typed access to the Desk's tables; every write is one transaction of the library's Store."""

    def __init__(self, store: Store) -> None:
        self.store = store

    # -- answer / report drafts ---------------------------------------------------------

    def new_draft(self, kind: str, query: str) -> int:
        with self.store.transaction() as conn:
            cur = conn.execute("INSERT INTO drafts (kind, query, created) VALUES (?, ?, ?)", (kind, query, time.time()))
            return int(cur.lastrowid)

    def add_draft_revision(
        self, draft_id: int, text: str, sources: list[dict[str, Any]], status: str = "draft", feedback: str = ""
    ) -> DraftRevision:
        """A new revision after the newest, made current; redo history beyond it is dropped."""
        with self.store.transaction() as conn:
            row = conn.execute("SELECT revision FROM drafts WHERE id = ?", (draft_id,)).fetchone()
            if row is None:
                raise PaperdeskError(f"draft {draft_id} no longer exists; run the search again")
            conn.execute("DELETE FROM draft_revisions WHERE draft_id = ? AND revision > ?", (draft_id, row[0]))
            number = row[0] + 1
            conn.execute(
                "INSERT INTO draft_revisions (draft_id, revision, text, sources, feedback, status, created) "
                "VALUES (?, ?, ?, ?, ?, ?, ?)",
                (draft_id, number, text, json.dumps(sources), feedback, status, time.time()),
            )
            conn.execute("UPDATE drafts SET revision = ?, redo_limit = ? WHERE id = ?", (number, number, draft_id))
        current = self.current_draft(draft_id)
        assert current is not None
        return current

    def draft_info(self, draft_id: int) -> tuple[str, str, int] | None:
        """(kind, query, current revision number) of a draft, or None when it is gone."""
        rows = self.store.query("SELECT kind, query, revision FROM drafts WHERE id = ?", (draft_id,))
        return (rows[0][0], rows[0][1], rows[0][2]) if rows else None

    def current_draft(self, draft_id: int) -> DraftRevision | None:
        rows = self.store.query(
            "SELECT d.id, d.kind, d.query, r.revision, r.text, r.sources, r.status, r.feedback "
            "FROM drafts d JOIN draft_revisions r ON r.draft_id = d.id AND r.revision = d.revision WHERE d.id = ?",
            (draft_id,),
        )
        if not rows:
            return None
        r = rows[0]
        return DraftRevision(r[0], r[1], r[2], r[3], r[4], json.loads(r[5]), r[6], r[7])

    def move_draft(self, draft_id: int, step: int) -> DraftRevision | None:
        """Undo (-1) or redo (+1) on a draft; None when there is nowhere to go."""
        with self.store.transaction() as conn:
            row = conn.execute("SELECT revision, redo_limit FROM drafts WHERE id = ?", (draft_id,)).fetchone()
            if row is None:
                return None
            target = row[0] + step
            if target < 1 or target > row[1]:
                return None
            conn.execute("UPDATE drafts SET revision = ? WHERE id = ?", (target, draft_id))
        return self.current_draft(draft_id)

    # -- reports --------------------------------------------------------------------

    def save_report(self, draft_id: int, title: str | None = None) -> Report:
        """Keep the draft's current revision as a report; saving again updates the same report."""
        current = self.current_draft(draft_id)
        if current is None:
            raise PaperdeskError("the draft has no text yet; improve <feedback> writes one, then save")
        name = (title or "").strip() or current.query
        now = time.time()
        with self.store.transaction() as conn:
            report_id = conn.execute("SELECT report_id FROM drafts WHERE id = ?", (draft_id,)).fetchone()[0]
            exists = report_id is not None and conn.execute(
                "SELECT 1 FROM reports WHERE id = ?", (report_id,)).fetchone() is not None
            if exists:
                if not (title or "").strip():
                    name = conn.execute("SELECT title FROM reports WHERE id = ?", (report_id,)).fetchone()[0]
                conn.execute(
                    "UPDATE reports SET title = ?, text = ?, sources = ?, updated = ? WHERE id = ?",
                    (name, current.text, json.dumps(current.sources), now, report_id),
                )
            else:
                cur = conn.execute(
                    "INSERT INTO reports (kind, title, query, text, sources, created, updated) VALUES (?, ?, ?, ?, ?, ?, ?)",
                    (current.kind, name, current.query, current.text, json.dumps(current.sources), now, now),
                )
                report_id = int(cur.lastrowid)
                conn.execute("UPDATE drafts SET report_id = ? WHERE id = ?", (report_id, draft_id))
        report = self.report(report_id)
        assert report is not None
        return report

    def report(self, report_id: int) -> Report | None:
        rows = self.store.query(
            "SELECT id, kind, title, query, text, sources, created FROM reports WHERE id = ?", (report_id,))
        return _report(rows[0]) if rows else None

    def reports(self) -> list[Report]:
        rows = self.store.query("SELECT id, kind, title, query, text, sources, created FROM reports ORDER BY id DESC")
        return [_report(r) for r in rows]

    # -- notes ----------------------------------------------------------------------

    def notes(self, paper_id: str) -> str:
        rows = self.store.query("SELECT text FROM notes WHERE paper_id = ?", (paper_id,))
        return rows[0][0] if rows else ""

    def set_notes(self, paper_id: str, text: str) -> None:
        with self.store.transaction() as conn:
            conn.execute(
                "INSERT OR REPLACE INTO notes (paper_id, text, updated) VALUES (?, ?, ?)", (paper_id, text, time.time())
            )

    def append_notes(self, paper_id: str, text: str) -> str:
        """Add a paragraph to a paper's notes; returns the whole notes."""
        with self.store.transaction() as conn:
            row = conn.execute("SELECT text FROM notes WHERE paper_id = ?", (paper_id,)).fetchone()
            old = row[0] if row else ""
            new = f"{old.rstrip()}\n{text.strip()}".strip() if old.strip() else text.strip()
            conn.execute(
                "INSERT OR REPLACE INTO notes (paper_id, text, updated) VALUES (?, ?, ?)", (paper_id, new, time.time())
            )
        return new

    # -- session ----------------------------------------------------------------------

    def load_session(self) -> dict[str, Any] | None:
        raw = self.store.get_meta(SESSION_KEY)
        if not raw:
            return None
        try:
            data = json.loads(raw)
        except json.JSONDecodeError:
            return None
        return data if isinstance(data, dict) else None

    def save_session(self, session: dict[str, Any], history: tuple[str, str, str] | None = None) -> None:
        """Write the session and (optionally) the command's history row in one transaction."""
        with self.store.transaction() as conn:
            conn.execute(
                "INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)", (SESSION_KEY, json.dumps(session))
            )
            if history is not None:
                command, state, outcome = history
                conn.execute(
                    "INSERT INTO command_history (command, state, outcome, created) VALUES (?, ?, ?, ?)",
                    (command, state, outcome, time.time()),
                )


def _report(r: Any) -> Report:
    return Report(r[0], r[1], r[2], r[3], r[4], json.loads(r[5]), r[6])
