"""The research tables: their migration beside the catalogue's, and run/task bookkeeping."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from paperdesk.core.research.plan import COMPLETED, IN_PROGRESS, PENDING, SKIPPED, Plan, Step
from paperdesk.core.research.tracker import WHOLE, Tracker
from paperdesk.core.db.schema import schema_version
from paperdesk.core.db.store import Store


def test_migration_runs_once_beside_the_catalogue(tmp_path: Path):
    db = tmp_path / "library.sqlite"
    store = Store(db)
    Tracker(db).close()
    Tracker(db).close()  # a second open runs nothing again
    conn = sqlite3.connect(db)
    assert schema_version(conn, "research") == 1
    tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    assert {"research_runs", "research_steps", "papers"} <= tables
    conn.close()
    store.close()


def test_runs_tasks_results_and_reopen(tmp_path: Path):
    t = Tracker(tmp_path / "library.sqlite")
    plan = Plan("q", [Step(1, "s", "library_search", {"query": "q"}, "found")])
    run_id = t.new_run(plan)
    assert t.run(run_id).plan.to_json() == plan.to_json() and t.run(run_id).status == IN_PROGRESS
    t.ensure_task(run_id, 1, WHOLE, None, "found")
    t.ensure_task(run_id, 1, WHOLE, None, "found")  # idempotent
    t.start(run_id, 1, WHOLE)
    assert t.reopen(run_id) == 1 and t.task(run_id, 1, WHOLE).status == PENDING
    t.start(run_id, 1, WHOLE)
    t.complete(run_id, 1, WHOLE, {"passages": []}, 0.5)
    row = t.task(run_id, 1, WHOLE)
    assert row.status == COMPLETED and row.attempts == 2 and row.seconds == 0.5
    assert t.results(run_id) == {"found": {"passages": []}}
    t.ensure_task(run_id, 2, WHOLE, None, "x")
    t.fail(run_id, 2, WHOLE, "its input found has no result", None, status=SKIPPED)
    assert t.task(run_id, 2, WHOLE).error == "its input found has no result"
    t.finish_run(run_id, COMPLETED, "# report", {"total_s": 1.0})
    assert t.unfinished() == [] and t.run(run_id).report == "# report"
    t.close()
