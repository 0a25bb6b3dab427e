"""Discussions and their turns in the library's SQLite file (owner "discussion").

A turn row, with the agents' state after it, is written in one transaction as
the turn ends; a process killed at any moment resumes from the last finished
turn with the same question queue.
"""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

from paperdesk.core.discussion.types import Turn
from paperdesk.core.errors import PaperdeskError
from paperdesk.core.db.owned_db import OwnedDb
from paperdesk.core.db.schema import script

OWNER = "discussion"
MIGRATIONS = [
    script(
        """
        CREATE TABLE discussions (
            id       INTEGER PRIMARY KEY AUTOINCREMENT,
            paper_id TEXT NOT NULL,
            turns    INTEGER NOT NULL,
            every    INTEGER NOT NULL,
            status   TEXT NOT NULL CHECK (status IN ('running', 'interrupted', 'finished')),
            state    TEXT NOT NULL DEFAULT '{}',
            summary  TEXT,
            created  REAL NOT NULL,
            updated  REAL NOT NULL
        );
        CREATE TABLE discussion_turns (
            discussion_id INTEGER NOT NULL REFERENCES discussions(id) ON DELETE CASCADE,
            n             INTEGER NOT NULL,
            record        TEXT NOT NULL,
            created       REAL NOT NULL,
            PRIMARY KEY (discussion_id, n)
        );
        """
    ),
]


class UnknownDiscussionError(PaperdeskError):
    pass


class DiscussionStore:
    def __init__(self, path: Path) -> None:
        self.db = OwnedDb(path, OWNER, MIGRATIONS)

    def close(self) -> None:
        self.db.close()

    def create(self, paper_id: str, turns: int, every: int, state: dict[str, Any]) -> int:
        now = time.time()
        with self.db.transaction() as conn:
            cur = conn.execute(
                "INSERT INTO discussions (paper_id, turns, every, status, state, created, updated) "
                "VALUES (?, ?, ?, 'running', ?, ?, ?)", (paper_id, turns, every, json.dumps(state), now, now))
            return int(cur.lastrowid)

    def add_turn(self, discussion_id: int, turn: Turn, state: dict[str, Any]) -> None:
        """The finished turn and the agents' state after it, atomically."""
        now = time.time()
        with self.db.transaction() as conn:
            conn.execute("INSERT INTO discussion_turns (discussion_id, n, record, created) VALUES (?, ?, ?, ?)",
                         (discussion_id, turn.n, json.dumps(turn.record()), now))
            conn.execute("UPDATE discussions SET state = ?, updated = ? WHERE id = ?",
                         (json.dumps(state), now, discussion_id))

    def set_status(self, discussion_id: int, status: str, state: dict[str, Any] | None = None) -> None:
        with self.db.transaction() as conn:
            if state is not None:
                conn.execute("UPDATE discussions SET state = ? WHERE id = ?", (json.dumps(state), discussion_id))
            conn.execute("UPDATE discussions SET status = ?, updated = ? WHERE id = ?",
                         (status, time.time(), discussion_id))

    def finish(self, discussion_id: int, summary: list[dict[str, Any]], state: dict[str, Any]) -> None:
        with self.db.transaction() as conn:
            conn.execute("UPDATE discussions SET status = 'finished', summary = ?, state = ?, updated = ? WHERE id = ?",
                         (json.dumps(summary), json.dumps(state), time.time(), discussion_id))

    def get(self, discussion_id: int) -> dict[str, Any]:
        rows = self.db.query("SELECT * FROM discussions WHERE id = ?", (discussion_id,))
        if not rows:
            raise UnknownDiscussionError(f"no discussion {discussion_id}; `paperdesk discuss ID` starts one")
        row = rows[0]
        return {"id": row["id"], "paper_id": row["paper_id"], "turns": row["turns"], "every": row["every"],
                "status": row["status"], "state": json.loads(row["state"]),
                "summary": json.loads(row["summary"]) if row["summary"] else None,
                "created": row["created"], "updated": row["updated"]}

    def turns(self, discussion_id: int) -> list[Turn]:
        rows = self.db.query("SELECT record FROM discussion_turns WHERE discussion_id = ? ORDER BY n", (discussion_id,))
        return [Turn.from_json(json.loads(r[0])) for r in rows]

    def latest_unfinished(self, paper_id: str | None = None) -> int | None:
        """The newest discussion not finished (of one paper, when given)."""
        sql = "SELECT id FROM discussions WHERE status != 'finished'"
        params: list[Any] = []
        if paper_id:
            sql += " AND paper_id = ?"
            params.append(paper_id)
        rows = self.db.query(sql + " ORDER BY updated DESC, id DESC LIMIT 1", params)
        return int(rows[0][0]) if rows else None

    def list(self, limit: int = 20) -> list[dict[str, Any]]:
        rows = self.db.query(
            "SELECT d.id, d.paper_id, d.turns, d.status, d.updated, "
            "(SELECT count(*) FROM discussion_turns t WHERE t.discussion_id = d.id) AS done "
            "FROM discussions d ORDER BY d.updated DESC LIMIT ?", (limit,))
        return [dict(r) for r in rows]
