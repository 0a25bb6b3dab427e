"""The desk's tables (drafts and their revisions, notes, reports, history), as ordered migrations.

Migrations 1-3 are the desk's part of the library schema up to PRAGMA
user_version 3 (before owners had their own versions), kept so that a
library made then maps onto them (user_version N = desk version N) and the
rest runs. Migration 4 merges the two draft models of those versions
(summary_revisions + summary_cursor, and drafts + draft_revisions for
answers and reports) into one: a draft has a kind, one revision cursor, and
numbered revisions with a status.
"""

from __future__ import annotations

import sqlite3

from paperdesk.core.db.schema import Migration, script

OWNER = "desk"

KINDS = ("summary", "answer", "report", "plan", "discussion")
STATUSES = ("draft", "final", "interrupted", "pending", "rejected")

_V1 = script("""
CREATE TABLE summary_revisions (
    id       INTEGER PRIMARY KEY AUTOINCREMENT,
    paper_id TEXT NOT NULL REFERENCES papers(id) ON DELETE CASCADE,
    revision INTEGER NOT NULL,
    text     TEXT NOT NULL,
    created  REAL NOT NULL,
    status   TEXT NOT NULL CHECK (status IN ('draft', 'final', 'interrupted')),
    UNIQUE (paper_id, revision)
);
CREATE TABLE notes (
    paper_id TEXT PRIMARY KEY REFERENCES papers(id) ON DELETE CASCADE,
    text     TEXT NOT NULL,
    updated  REAL NOT NULL
);
CREATE TABLE reports (
    id      INTEGER PRIMARY KEY AUTOINCREMENT,
    kind    TEXT NOT NULL,
    title   TEXT NOT NULL,
    query   TEXT NOT NULL DEFAULT '',
    text    TEXT NOT NULL,
    sources TEXT NOT NULL DEFAULT '[]',
    created REAL NOT NULL
);
CREATE TABLE command_history (
    id      INTEGER PRIMARY KEY AUTOINCREMENT,
    command TEXT NOT NULL,
    state   TEXT NOT NULL DEFAULT '',
    outcome TEXT NOT NULL DEFAULT '',
    created REAL NOT NULL
);
""")

_V2 = script("""
CREATE TABLE summary_cursor (
    paper_id TEXT PRIMARY KEY REFERENCES papers(id) ON DELETE CASCADE,
    revision INTEGER NOT NULL,
    redo_limit INTEGER NOT NULL
);
""")

_V3 = script("""
CREATE TABLE drafts (
    id         INTEGER PRIMARY KEY AUTOINCREMENT,
    kind       TEXT NOT NULL CHECK (kind IN ('answer', 'report')),
    query      TEXT NOT NULL,
    created    REAL NOT NULL,
    revision   INTEGER NOT NULL DEFAULT 0,
    redo_limit INTEGER NOT NULL DEFAULT 0,
    report_id  INTEGER REFERENCES reports(id) ON DELETE SET NULL
);
CREATE TABLE draft_revisions (
    draft_id INTEGER NOT NULL REFERENCES drafts(id) ON DELETE CASCADE,
    revision INTEGER NOT NULL,
    text     TEXT NOT NULL,
    sources  TEXT NOT NULL DEFAULT '[]',
    feedback TEXT NOT NULL DEFAULT '',
    status   TEXT NOT NULL CHECK (status IN ('draft', 'interrupted')),
    created  REAL NOT NULL,
    PRIMARY KEY (draft_id, revision)
);
ALTER TABLE reports ADD COLUMN updated REAL;
""")


def _quoted(values: tuple[str, ...]) -> str:
    return ", ".join(f"'{v}'" for v in values)


_NEW_TABLES = f"""
CREATE TABLE one_drafts (
    id         INTEGER PRIMARY KEY AUTOINCREMENT,
    kind       TEXT NOT NULL CHECK (kind IN ({_quoted(KINDS)})),
    paper_id   TEXT REFERENCES papers(id) ON DELETE CASCADE,
    query      TEXT NOT NULL DEFAULT '',
    created    REAL NOT NULL,
    revision   INTEGER NOT NULL DEFAULT 0,
    redo_limit INTEGER NOT NULL DEFAULT 0,
    report_id  INTEGER REFERENCES reports(id) ON DELETE SET NULL
);
CREATE TABLE one_revisions (
    draft_id INTEGER NOT NULL REFERENCES one_drafts(id) ON DELETE CASCADE,
    revision INTEGER NOT NULL,
    text     TEXT NOT NULL,
    sources  TEXT NOT NULL DEFAULT '[]',
    feedback TEXT NOT NULL DEFAULT '',
    status   TEXT NOT NULL CHECK (status IN ({_quoted(STATUSES)})),
    created  REAL NOT NULL,
    PRIMARY KEY (draft_id, revision)
);
"""


def _one_draft_model(conn: sqlite3.Connection) -> None:
    """Summaries, answers and reports become drafts of one table with one cursor each.

    The kind CHECK of the old drafts table means rebuilding it: new tables are
    filled, the old ones dropped (children first: dropping a parent with
    foreign keys on deletes its children), and the new ones renamed.
    """
    script(_NEW_TABLES)(conn)
    # answers and reports keep their ids: the persisted session points at them
    conn.execute("INSERT INTO one_drafts (id, kind, query, created, revision, redo_limit, report_id) "
                 "SELECT id, kind, query, created, revision, redo_limit, report_id FROM drafts")
    conn.execute("INSERT INTO one_revisions (draft_id, revision, text, sources, feedback, status, created) "
                 "SELECT draft_id, revision, text, sources, feedback, status, created FROM draft_revisions")
    # one summary draft per paper; a paper whose revisions predate the cursor table points at its newest
    conn.execute(
        "INSERT INTO one_drafts (kind, paper_id, query, created, revision, redo_limit) "
        "SELECT 'summary', r.paper_id, '', MIN(r.created), COALESCE(c.revision, MAX(r.revision)), "
        "COALESCE(c.redo_limit, MAX(r.revision)) FROM summary_revisions r "
        "LEFT JOIN summary_cursor c ON c.paper_id = r.paper_id GROUP BY r.paper_id ORDER BY MIN(r.id)")
    conn.execute(
        "INSERT INTO one_revisions (draft_id, revision, text, status, created) "
        "SELECT d.id, r.revision, r.text, r.status, r.created FROM summary_revisions r "
        "JOIN one_drafts d ON d.kind = 'summary' AND d.paper_id = r.paper_id")
    for table in ("draft_revisions", "drafts", "summary_cursor", "summary_revisions"):
        conn.execute(f"DROP TABLE {table}")
    conn.execute("ALTER TABLE one_drafts RENAME TO drafts")  # also renames the reference in one_revisions
    conn.execute("ALTER TABLE one_revisions RENAME TO draft_revisions")
    conn.execute("CREATE UNIQUE INDEX drafts_summary_paper ON drafts(paper_id) WHERE kind = 'summary'")


MIGRATIONS: list[Migration] = [_V1, _V2, _V3, _one_draft_model]
