"""What the Desk keeps beside the library: reports, notes, the session (and its answer/report drafts).

Answers (sem-search) and reports (research) are drafts of the one draft model
(`drafts.py`), like summaries. `save` copies the current revision into
`reports`. The session (workflow state and the state variables) is one JSON
value written in the same transaction as the command's history row, so a
process killed at any moment resumes from the last finished command.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass
from typing import Any

from paperdesk.core.db.drafts import Revision
from paperdesk.core.errors import PaperdeskError
from paperdesk.core.db.store import Store

SESSION_KEY = "session"
DraftRevision = Revision  # an answer's or a report's revision


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

    # -- answer / report drafts: the one draft model --------------------------------------

    def new_draft(self, kind: str, query: str) -> int:
        return self.store.drafts.new(kind, query)

    def add_draft_revision(self, draft_id: int, text: str, sources: list[dict[str, Any]], status: str = "draft",
                           feedback: str = "") -> Revision:
        return self.store.drafts.add_revision(draft_id, text, sources, status, feedback)

    def draft_info(self, draft_id: int) -> tuple[str, str, int] | None:
        return self.store.drafts.info(draft_id)

    def current_draft(self, draft_id: int) -> Revision | None:
        return self.store.drafts.current(draft_id)

    # -- reports --------------------------------------------------------------------

    def is_saved(self, draft_id: int) -> bool:
        """The draft has been kept as a report (`save`); improving it later updates that report on the next save."""
        rows = self.store.query("SELECT 1 FROM drafts d JOIN reports r ON r.id = d.report_id WHERE d.id = ?",
                                (draft_id,))
        return bool(rows)

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
