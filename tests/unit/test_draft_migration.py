"""Libraries made by the schema of PRAGMA user_version 1-3 migrate onto per-owner versions and one draft model.

The legacy SQL below is copied verbatim from store.py as it was before the
merge (never imported from the code under test), and the rows are written
the way that code wrote them, so every revision and cursor can be checked.
"""

import json
import sqlite3

import pytest

from paperdesk.core.db.desk_store import DeskStore
from paperdesk.core.db.store import ADOPTED_USER_VERSION, Store

LEGACY: dict[int, str] = {
    1: """
    CREATE TABLE papers (
        id          TEXT PRIMARY KEY,
        arxiv_id    TEXT,
        version     INTEGER,
        title       TEXT NOT NULL,
        authors     TEXT NOT NULL DEFAULT '[]',
        abstract    TEXT NOT NULL DEFAULT '',
        published   TEXT,
        updated     TEXT,
        categories  TEXT NOT NULL DEFAULT '[]',
        pdf_path    TEXT,
        source_url  TEXT,
        page_count  INTEGER NOT NULL DEFAULT 0,
        added       REAL NOT NULL,
        index_state TEXT NOT NULL DEFAULT 'pending' CHECK (index_state IN ('pending', 'indexed'))
    );
    CREATE INDEX papers_arxiv ON papers(arxiv_id);
    CREATE TABLE pages (
        paper_id TEXT NOT NULL REFERENCES papers(id) ON DELETE CASCADE,
        page_no  INTEGER NOT NULL,
        text     TEXT NOT NULL,
        PRIMARY KEY (paper_id, page_no)
    );
    CREATE TABLE chunks (
        id         INTEGER PRIMARY KEY AUTOINCREMENT,
        paper_id   TEXT NOT NULL REFERENCES papers(id) ON DELETE CASCADE,
        ordinal    INTEGER NOT NULL,
        page_start INTEGER NOT NULL,
        page_end   INTEGER NOT NULL,
        section    TEXT NOT NULL DEFAULT '',
        text       TEXT NOT NULL,
        embedding  BLOB
    );
    CREATE INDEX chunks_paper ON chunks(paper_id, ordinal);
    CREATE TABLE index_tombstones (
        paper_id TEXT PRIMARY KEY,
        chunk_ids TEXT NOT NULL
    );
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
    CREATE TABLE meta (
        key   TEXT PRIMARY KEY,
        value TEXT NOT NULL
    );
    """,
    2: """
    CREATE TABLE summary_cursor (
        paper_id TEXT PRIMARY KEY REFERENCES papers(id) ON DELETE CASCADE,
        revision INTEGER NOT NULL,
        redo_limit INTEGER NOT NULL
    );
    """,
    3: """
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
    ALTER TABLE reports ADD COLUMN updated REAL
    """,
}


def legacy_library(path, version):
    """A library at `version` with two papers' summaries (one undone), an answer and a saved report."""
    conn = sqlite3.connect(path, isolation_level=None)
    for v in range(1, version + 1):
        for statement in (s.strip() for s in LEGACY[v].split(";")):
            if statement:
                conn.execute(statement)
    conn.execute(f"PRAGMA user_version = {version}")
    for pid in ("2302.07302v1", "2304.02623v1"):
        conn.execute("INSERT INTO papers (id, title, added) VALUES (?, ?, 1)", (pid, f"paper {pid}"))
    summaries = {"2302.07302v1": [("one", "draft"), ("two", "final"), ("three", "interrupted")],
                 "2304.02623v1": [("only", "final")]}
    for pid, revisions in summaries.items():
        for n, (text, status) in enumerate(revisions, start=1):
            conn.execute("INSERT INTO summary_revisions (paper_id, revision, text, created, status) "
                         "VALUES (?, ?, ?, ?, ?)", (pid, n, text, 100.0 + n, status))
    if version >= 2:  # undone once: the cursor at 2 of 3
        conn.execute("INSERT INTO summary_cursor VALUES ('2302.07302v1', 2, 3)")
        conn.execute("INSERT INTO summary_cursor VALUES ('2304.02623v1', 1, 1)")
    if version >= 3:
        conn.execute("INSERT INTO reports (kind, title, query, text, sources, created, updated) "
                     "VALUES ('answer', 'kept', 'q?', 'answer two', '[]', 5, 5)")
        conn.execute("INSERT INTO drafts (id, kind, query, created, revision, redo_limit, report_id) "
                     "VALUES (7, 'answer', 'q?', 3, 2, 2, 1)")
        conn.execute("INSERT INTO drafts (id, kind, query, created, revision, redo_limit) "
                     "VALUES (8, 'report', 'r?', 4, 1, 2)")
        sources = json.dumps([{"n": 1, "paper_id": "2302.07302v1", "page": 2}])
        for draft_id, n, text, status in [(7, 1, "answer one", "draft"), (7, 2, "answer two", "interrupted"),
                                          (8, 1, "report one", "draft"), (8, 2, "report two", "draft")]:
            conn.execute("INSERT INTO draft_revisions (draft_id, revision, text, sources, feedback, status, created) "
                         "VALUES (?, ?, ?, ?, ?, ?, ?)", (draft_id, n, text, sources, f"fb{n}", status, 10.0 + n))
    conn.execute("INSERT INTO notes VALUES ('2302.07302v1', 'my notes', 1)")
    conn.execute("INSERT INTO meta VALUES ('vector_generation', '4')")
    conn.close()


@pytest.mark.parametrize("version", [1, 2, 3])
def test_a_legacy_library_keeps_every_revision_and_cursor(tmp_path, version):
    path = tmp_path / "lib.sqlite"
    legacy_library(path, version)
    store = Store(path)
    assert store.schema_versions() == {"catalogue": 3, "desk": 4, "paper_meta": 1}
    assert store.query("PRAGMA user_version")[0][0] == ADOPTED_USER_VERSION
    assert store.vector_generation() == 4 and DeskStore(store).notes("2302.07302v1") == "my notes"

    revisions = [(r.revision, r.text, r.status, r.created) for r in store.revisions("2302.07302v1")]
    assert revisions == [(1, "one", "draft", 101.0), (2, "two", "final", 102.0), (3, "three", "interrupted", 103.0)]
    current = store.current_revision("2302.07302v1")
    if version == 1:  # no cursor table yet: the newest revision is current
        assert current.revision == 3 and store.move_revision("2302.07302v1", +1) is None
    else:
        assert (current.revision, current.text) == (2, "two")
        assert store.move_revision("2302.07302v1", +1).text == "three"  # redo still reaches revision 3
    assert store.current_revision("2304.02623v1").text == "only"

    if version >= 3:
        desk = DeskStore(store)
        answer = desk.current_draft(7)  # the id the persisted session points at is kept
        assert (answer.kind, answer.query, answer.revision, answer.text, answer.status, answer.feedback) == (
            "answer", "q?", 2, "answer two", "interrupted", "fb2")
        assert answer.sources == [{"n": 1, "paper_id": "2302.07302v1", "page": 2}]
        assert [r.text for r in store.drafts.revisions(7)] == ["answer one", "answer two"]
        report = desk.current_draft(8)
        assert (report.kind, report.revision) == ("report", 1)
        assert store.drafts.move(8, +1).text == "report two"  # its redo limit survived
        assert desk.save_report(7).id == 1  # still linked to the report it was saved as
        assert store.drafts.new("answer", "next") > 8  # new drafts are numbered after the old ones
    store.close()
    reopened = Store(path)  # nothing runs twice
    assert reopened.schema_versions() == {"catalogue": 3, "desk": 4, "paper_meta": 1}
    assert len(reopened.revisions("2302.07302v1")) == 3


def test_the_one_draft_model_kinds_statuses_and_diff(tmp_path):
    store = Store(tmp_path / "lib.sqlite")
    drafts = store.drafts
    plan = drafts.new("plan", "how do readers track citations")
    drafts.add_revision(plan, "1. search\n2. read\n3. write")
    drafts.add_revision(plan, "1. search\n2. read twice\n3. write", status="pending", feedback="read more")
    assert drafts.current(plan).status == "pending" and drafts.current(plan).feedback == "read more"
    assert drafts.diff(plan, 1, 2)[2:] == ["@@ -1,3 +1,3 @@", " 1. search", "-2. read", "+2. read twice", " 3. write"]
    drafts.set_status(plan, 2, "rejected")
    assert drafts.move(plan, -1).revision == 1 and drafts.move(plan, -1) is None
    with pytest.raises(ValueError, match="unknown draft kind"):
        drafts.new("poem")
    with pytest.raises(ValueError, match="unknown revision status"):
        drafts.add_revision(plan, "x", status="done")
    from paperdesk.core.errors import PaperdeskError

    with pytest.raises(PaperdeskError, match="no revision 9"):
        drafts.diff(plan, 1, 9)


def test_a_crash_inside_the_draft_migration_leaves_the_old_tables(tmp_path, monkeypatch):
    path = tmp_path / "lib.sqlite"
    legacy_library(path, 3)
    from paperdesk.core.db import desk_schema

    def broken(conn):
        desk_schema._one_draft_model(conn)
        raise RuntimeError("killed")

    monkeypatch.setattr(desk_schema, "MIGRATIONS", [*desk_schema.MIGRATIONS[:3], broken])
    with pytest.raises(RuntimeError):
        Store(path)
    conn = sqlite3.connect(path)
    tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    assert {"summary_revisions", "summary_cursor", "drafts", "draft_revisions"} <= tables
    assert conn.execute("SELECT COUNT(*) FROM summary_revisions").fetchone()[0] == 4
    conn.close()
    monkeypatch.undo()
    assert Store(path).current_revision("2302.07302v1").text == "two"  # the next start finishes it
