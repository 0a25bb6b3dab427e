"""The one draft model: summaries, answers, reports (and later plans, discussions).

A draft has a kind, numbered revisions and one cursor (the current revision).
A new revision is numbered after the newest and becomes current; undo and
redo walk the revisions in the order they were written, up to the newest one
written last (`redo_limit`). Nothing is deleted except by `discard_after`
(abandon). A summary draft belongs to its paper: one per paper, created on
its first revision. Every write is one transaction of the library's Store.
"""

from __future__ import annotations

import difflib
import json
import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from paperdesk.core.db.desk_schema import KINDS, STATUSES
from paperdesk.core.errors import PaperdeskError, UnknownPaperError

if TYPE_CHECKING:
    from paperdesk.core.db.store import Store

_COLUMNS = ("d.id, d.kind, d.paper_id, d.query, r.revision, r.text, r.status, r.created, r.sources, r.feedback")


@dataclass
class Revision:
    """One revision of a draft."""

    draft_id: int
    kind: str  # summary, answer, report, plan, discussion
    revision: int
    text: str
    status: str = "draft"  # draft, final, interrupted, pending, rejected
    created: float = 0.0
    sources: list[dict[str, Any]] = field(default_factory=list)
    feedback: str = ""
    paper_id: str | None = None  # summary: the paper
    query: str = ""  # answer, report: the question


def _revision(row: Any) -> Revision:
    return Revision(row[0], row[1], row[4], row[5], row[6], row[7], json.loads(row[8]), row[9], row[2], row[3])


class Drafts:
    """Typed access to drafts and their revisions."""

    def __init__(self, store: "Store") -> None:
        self.store = store

    # -- drafts -----------------------------------------------------------------------------

    def new(self, kind: str, query: str = "", paper_id: str | None = None) -> int:
        """A new empty draft; returns its id."""
        if kind not in KINDS:
            raise ValueError(f"unknown draft kind {kind!r}; kinds: {', '.join(KINDS)}")
        with self.store.transaction() as conn:
            cur = conn.execute("INSERT INTO drafts (kind, paper_id, query, created) VALUES (?, ?, ?, ?)",
                               (kind, paper_id, query, time.time()))
            return int(cur.lastrowid)

    def summary_of(self, paper_id: str) -> int | None:
        """The id of a paper's summary draft, or None when it has none."""
        rows = self.store.query("SELECT id FROM drafts WHERE kind = 'summary' AND paper_id = ?", (paper_id,))
        return int(rows[0][0]) if rows else None

    def info(self, draft_id: int) -> tuple[str, str, int] | None:
        """(kind, query, current revision number) of a draft, or None when it is gone."""
        rows = self.store.query("SELECT kind, query, revision FROM drafts WHERE id = ?", (draft_id,))
        return (rows[0][0], rows[0][1], rows[0][2]) if rows else None

    # -- revisions --------------------------------------------------------------------------

    def add_revision(self, draft_id: int, text: str, sources: list[dict[str, Any]] | None = None,
                     status: str = "draft", feedback: str = "") -> Revision:
        """A new revision after the newest, made current."""
        _check_status(status)
        with self.store.transaction() as conn:
            if conn.execute("SELECT 1 FROM drafts WHERE id = ?", (draft_id,)).fetchone() is None:
                raise PaperdeskError(f"draft {draft_id} no longer exists; run the command that wrote it again")
            self._insert(conn, draft_id, text, sources or [], status, feedback)
        current = self.current(draft_id)
        assert current is not None
        return current

    def add_summary_revision(self, paper_id: str, text: str, status: str = "draft") -> Revision:
        """A new revision of a paper's summary (its draft is created with the first one)."""
        _check_status(status)
        with self.store.transaction() as conn:
            if conn.execute("SELECT 1 FROM papers WHERE id = ?", (paper_id,)).fetchone() is None:
                raise UnknownPaperError(f"no paper {paper_id} in the library")
            row = conn.execute("SELECT id FROM drafts WHERE kind = 'summary' AND paper_id = ?", (paper_id,)).fetchone()
            draft_id = row[0] if row else conn.execute(
                "INSERT INTO drafts (kind, paper_id, created) VALUES ('summary', ?, ?)", (paper_id, time.time())
            ).lastrowid
            self._insert(conn, draft_id, text, [], status, "")
        current = self.current(draft_id)
        assert current is not None
        return current

    @staticmethod
    def _insert(conn: Any, draft_id: int, text: str, sources: list[dict[str, Any]], status: str,
                feedback: str) -> None:
        number = conn.execute("SELECT COALESCE(MAX(revision), 0) + 1 FROM draft_revisions WHERE draft_id = ?",
                              (draft_id,)).fetchone()[0]
        conn.execute(
            "INSERT INTO draft_revisions (draft_id, revision, text, sources, feedback, status, created) "
            "VALUES (?, ?, ?, ?, ?, ?, ?)",
            (draft_id, number, text, json.dumps(sources), feedback, status, time.time()))
        conn.execute("UPDATE drafts SET revision = ?, redo_limit = ? WHERE id = ?", (number, number, draft_id))

    def current(self, draft_id: int) -> Revision | None:
        """The revision the cursor points at, or None when the draft has none (or is gone)."""
        rows = self.store.query(
            f"SELECT {_COLUMNS} FROM drafts d JOIN draft_revisions r ON r.draft_id = d.id AND r.revision = d.revision "
            "WHERE d.id = ?", (draft_id,))
        return _revision(rows[0]) if rows else None

    def revision(self, draft_id: int, number: int) -> Revision | None:
        rows = self.store.query(
            f"SELECT {_COLUMNS} FROM drafts d JOIN draft_revisions r ON r.draft_id = d.id "
            "WHERE d.id = ? AND r.revision = ?", (draft_id, number))
        return _revision(rows[0]) if rows else None

    def revisions(self, draft_id: int) -> list[Revision]:
        rows = self.store.query(
            f"SELECT {_COLUMNS} FROM drafts d JOIN draft_revisions r ON r.draft_id = d.id WHERE d.id = ? "
            "ORDER BY r.revision", (draft_id,))
        return [_revision(r) for r in rows]

    def move(self, draft_id: int, step: int) -> Revision | None:
        """Undo (-1) or redo (+1); None when there is nowhere to go."""
        with self.store.transaction() as conn:
            row = conn.execute("SELECT revision, redo_limit FROM drafts WHERE id = ?", (draft_id,)).fetchone()
            if row is None:
                return None
            target = row[0] + step
            if target < 1 or target > row[1]:
                return None
            conn.execute("UPDATE drafts SET revision = ? WHERE id = ?", (target, draft_id))
        return self.current(draft_id)

    def can_move(self, draft_id: int, step: int) -> bool:
        """Whether undo (-1) or redo (+1) has a revision to go to (what `move` would do, without moving)."""
        rows = self.store.query("SELECT revision, redo_limit FROM drafts WHERE id = ?", (draft_id,))
        return bool(rows) and 1 <= rows[0][0] + step <= rows[0][1]

    def rewrite(self, draft_id: int, number: int, text: str, status: str) -> Revision:
        """Replace a revision's text and status in place: a summary's revision grows section by section."""
        _check_status(status)
        with self.store.transaction() as conn:
            conn.execute("UPDATE draft_revisions SET text = ?, status = ? WHERE draft_id = ? AND revision = ?",
                         (text, status, draft_id, number))
        revision = self.revision(draft_id, number)
        if revision is None:
            raise PaperdeskError(f"draft {draft_id} has no revision {number}")
        return revision

    def set_status(self, draft_id: int, number: int, status: str) -> None:
        _check_status(status)
        with self.store.transaction() as conn:
            conn.execute("UPDATE draft_revisions SET status = ? WHERE draft_id = ? AND revision = ?",
                         (status, draft_id, number))

    def discard_after(self, draft_id: int, base: int | None) -> None:
        """Drop revisions newer than `base` (all when None) and point the cursor back at `base`."""
        keep = base or 0
        with self.store.transaction() as conn:
            conn.execute("DELETE FROM draft_revisions WHERE draft_id = ? AND revision > ?", (draft_id, keep))
            conn.execute("UPDATE drafts SET revision = ?, redo_limit = ? WHERE id = ?", (keep, keep, draft_id))

    def drop_empty_after(self, draft_id: int) -> int:
        """Delete drafts newer than `draft_id` that got no revision (a command failed first); returns how many."""
        with self.store.transaction() as conn:
            return conn.execute("DELETE FROM drafts WHERE id > ? AND NOT EXISTS "
                                "(SELECT 1 FROM draft_revisions r WHERE r.draft_id = drafts.id)", (draft_id,)).rowcount

    def diff(self, draft_id: int, a: int, b: int) -> list[str]:
        """Unified diff lines from revision `a` to revision `b` of a draft (what plan review shows)."""
        old, new = self.revision(draft_id, a), self.revision(draft_id, b)
        missing = [n for n, r in ((a, old), (b, new)) if r is None]
        if missing:
            raise PaperdeskError(f"draft {draft_id} has no revision {missing[0]}; undo/redo show the ones it has")
        assert old is not None and new is not None
        return list(difflib.unified_diff(old.text.splitlines(), new.text.splitlines(),
                                         f"revision {a}", f"revision {b}", lineterm=""))


def _check_status(status: str) -> None:
    if status not in STATUSES:
        raise ValueError(f"unknown revision status {status!r}; statuses: {', '.join(STATUSES)}")
