"""The state tracker: research runs and their steps in the library's SQLite file.

Tables belong to the "research" owner (paperdesk.core.db.schema). One row per
run (the plan as JSON, status, report) and one per executed task: a step, or
one iteration of an iterate_over step. Every status change is its own
committed write, so a process killed with kill -9 leaves COMPLETED tasks with
their results; `resume` turns tasks left IN_PROGRESS back into PENDING and
the engine runs only what is not COMPLETED.
"""

from __future__ import annotations

import json
import sqlite3
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from paperdesk.core.errors import PaperdeskError, StoreError
from paperdesk.core.research.plan import COMPLETED, FAILED, IN_PROGRESS, PENDING, SKIPPED, Plan
from paperdesk.core.db.schema import migrate, script

MIGRATIONS = [script("""
CREATE TABLE research_runs (
    id INTEGER PRIMARY KEY,
    query TEXT NOT NULL,
    plan TEXT NOT NULL,
    status TEXT NOT NULL,
    made_by TEXT NOT NULL DEFAULT '',
    report TEXT,
    fallback INTEGER NOT NULL DEFAULT 0,
    error TEXT,
    timings TEXT NOT NULL DEFAULT '{}',
    created REAL NOT NULL,
    updated REAL NOT NULL
);
CREATE TABLE research_steps (
    run_id INTEGER NOT NULL REFERENCES research_runs(id) ON DELETE CASCADE,
    step_id INTEGER NOT NULL,
    iteration INTEGER NOT NULL,
    item TEXT,
    output_key TEXT NOT NULL,
    status TEXT NOT NULL,
    result TEXT,
    error TEXT,
    attempts INTEGER NOT NULL DEFAULT 0,
    started REAL,
    finished REAL,
    seconds REAL,
    PRIMARY KEY (run_id, step_id, iteration)
);
""")]
WHOLE = -1  # the iteration number of a step that does not iterate


def _mode(plan_json: str) -> str:
    """The research mode a run was started in, stored with its plan ("" for runs stored before modes were)."""
    try:
        data = json.loads(plan_json)
    except (TypeError, ValueError):
        return ""
    return str(data.get("mode") or "") if isinstance(data, dict) else ""


@dataclass
class TaskRow:
    run_id: int
    step_id: int
    iteration: int
    item: str | None
    output_key: str
    status: str
    result: Any
    error: str | None
    attempts: int
    started: float | None
    seconds: float | None


@dataclass
class RunRow:
    id: int
    query: str
    plan: Plan
    status: str
    made_by: str
    report: str | None
    fallback: bool
    error: str | None
    timings: dict[str, float]
    created: float
    mode: str = ""  # agent or reader: what the run was started as ("" for runs stored before modes were)


class Tracker:
    """Runs and steps, thread-safe, on its own connection to the library file (WAL lets both write)."""

    def __init__(self, db_path: Path) -> None:
        try:
            self._conn = sqlite3.connect(db_path, check_same_thread=False, isolation_level=None, timeout=10.0)
            self._conn.execute("PRAGMA journal_mode=WAL")
            self._conn.execute("PRAGMA foreign_keys=ON")
            migrate(self._conn, "research", MIGRATIONS)
        except sqlite3.DatabaseError as exc:
            raise StoreError(f"cannot open the research tables in {db_path}: {exc}") from None
        self._lock = threading.RLock()

    @classmethod
    def for_library(cls, library: Any) -> "Tracker":
        return cls(library.store.path)

    def close(self) -> None:
        with self._lock:
            self._conn.close()

    def _write(self, sql: str, params: tuple[Any, ...]) -> sqlite3.Cursor:
        with self._lock:
            return self._conn.execute(sql, params)  # autocommit: each write is durable on return

    # -- runs ----------------------------------------------------------------------------

    def new_run(self, plan: Plan, mode: str = "") -> int:
        """A new IN_PROGRESS run; `mode` (agent, reader) is kept beside the plan, for its resume."""
        now = time.time()
        stored = {**plan.to_json(), **({"mode": mode} if mode else {})}
        cur = self._write("INSERT INTO research_runs (query, plan, status, made_by, created, updated) "
                          "VALUES (?, ?, ?, ?, ?, ?)",
                          (plan.query, json.dumps(stored), IN_PROGRESS, plan.made_by, now, now))
        return int(cur.lastrowid)

    def finish_run(self, run_id: int, status: str, report: str | None, timings: dict[str, float],
                   fallback: bool = False, error: str | None = None) -> None:
        self._write("UPDATE research_runs SET status = ?, report = ?, timings = ?, fallback = ?, error = ?, "
                    "updated = ? WHERE id = ?",
                    (status, report, json.dumps(timings), int(fallback), error, time.time(), run_id))

    def set_run_status(self, run_id: int, status: str) -> None:
        self._write("UPDATE research_runs SET status = ?, updated = ? WHERE id = ?", (status, time.time(), run_id))

    def run(self, run_id: int) -> RunRow:
        with self._lock:
            row = self._conn.execute("SELECT id, query, plan, status, made_by, report, fallback, error, timings, "
                                     "created FROM research_runs WHERE id = ?", (run_id,)).fetchone()
        if row is None:
            raise PaperdeskError(f"there is no research run {run_id}; `paperdesk research --runs` lists them")
        return RunRow(row[0], row[1], Plan.from_json(row[2]), row[3], row[4], row[5], bool(row[6]), row[7],
                      json.loads(row[8] or "{}"), row[9], _mode(row[2]))

    def runs(self, limit: int = 20) -> list[RunRow]:
        with self._lock:
            ids = [r[0] for r in self._conn.execute("SELECT id FROM research_runs ORDER BY id DESC LIMIT ?", (limit,))]
        return [self.run(i) for i in ids]

    def unfinished(self) -> list[RunRow]:
        """Runs a killed or cancelled process left IN_PROGRESS: what `research --resume` offers."""
        with self._lock:
            ids = [r[0] for r in self._conn.execute(
                "SELECT id FROM research_runs WHERE status IN (?, ?) ORDER BY id DESC", (IN_PROGRESS, "CANCELLED"))]
        return [self.run(i) for i in ids]

    # -- tasks (a step, or one iteration of it) -----------------------------------------------

    def tasks(self, run_id: int) -> list[TaskRow]:
        with self._lock:
            rows = self._conn.execute(
                "SELECT run_id, step_id, iteration, item, output_key, status, result, error, attempts, started, "
                "seconds FROM research_steps WHERE run_id = ? ORDER BY step_id, iteration", (run_id,)).fetchall()
        return [TaskRow(r[0], r[1], r[2], r[3], r[4], r[5], json.loads(r[6]) if r[6] else None, r[7], r[8], r[9],
                        r[10]) for r in rows]

    def task(self, run_id: int, step_id: int, iteration: int) -> TaskRow | None:
        for t in self.tasks(run_id):
            if t.step_id == step_id and t.iteration == iteration:
                return t
        return None

    def ensure_task(self, run_id: int, step_id: int, iteration: int, item: str | None, output_key: str) -> None:
        self._write("INSERT OR IGNORE INTO research_steps (run_id, step_id, iteration, item, output_key, status) "
                    "VALUES (?, ?, ?, ?, ?, ?)", (run_id, step_id, iteration, item, output_key, PENDING))

    def start(self, run_id: int, step_id: int, iteration: int) -> None:
        self._write("UPDATE research_steps SET status = ?, attempts = attempts + 1, started = ?, error = NULL "
                    "WHERE run_id = ? AND step_id = ? AND iteration = ?",
                    (IN_PROGRESS, time.time(), run_id, step_id, iteration))

    def complete(self, run_id: int, step_id: int, iteration: int, result: Any, seconds: float) -> None:
        self._write("UPDATE research_steps SET status = ?, result = ?, finished = ?, seconds = ? "
                    "WHERE run_id = ? AND step_id = ? AND iteration = ?",
                    (COMPLETED, json.dumps(result), time.time(), seconds, run_id, step_id, iteration))

    def fail(self, run_id: int, step_id: int, iteration: int, error: str, seconds: float | None,
             status: str = FAILED) -> None:
        self._write("UPDATE research_steps SET status = ?, error = ?, finished = ?, seconds = ? "
                    "WHERE run_id = ? AND step_id = ? AND iteration = ?",
                    (status, error, time.time(), seconds, run_id, step_id, iteration))

    def reset(self, run_id: int, step_id: int, iteration: int) -> None:
        """Back to PENDING (a cancelled task): the next run or resume does it again."""
        self._write("UPDATE research_steps SET status = ? WHERE run_id = ? AND step_id = ? AND iteration = ? "
                    "AND status = ?", (PENDING, run_id, step_id, iteration, IN_PROGRESS))

    def reopen(self, run_id: int) -> int:
        """Prepare a killed run for resuming: IN_PROGRESS tasks become PENDING; returns how many."""
        cur = self._write("UPDATE research_steps SET status = ? WHERE run_id = ? AND status = ?",
                          (PENDING, run_id, IN_PROGRESS))
        self.set_run_status(run_id, IN_PROGRESS)
        return cur.rowcount

    def results(self, run_id: int) -> dict[str, Any]:
        """Results by output_key of every COMPLETED non-iterated task."""
        return {t.output_key: t.result for t in self.tasks(run_id) if t.status == COMPLETED and t.iteration == WHOLE}


__all__ = ["Tracker", "TaskRow", "RunRow", "WHOLE", "MIGRATIONS", "COMPLETED", "FAILED", "SKIPPED", "PENDING"]
