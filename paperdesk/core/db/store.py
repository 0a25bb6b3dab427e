"""The library catalogue: one SQLite file in WAL mode.

SQLite is the source of truth for everything: papers, their page text, chunks
and chunk embeddings, summary revisions, notes, reports and history. The
tantivy index and the vector matrix beside it are derived and can be rebuilt
from here. Every write is one transaction, so a process killed at any moment
leaves a database that opens with every committed row.
"""

from __future__ import annotations

import json
import sqlite3
import time
from pathlib import Path
from typing import Any, Sequence

from paperdesk.core.db import desk_schema
from paperdesk.core.db.chunk_queries import ChunkQueries
from paperdesk.core.db.records import Chunk, NewChunk, Paper, SummaryRevision, paper_from_row
from paperdesk.core.db import paper_meta
from paperdesk.core.db import pdf_hashes
from paperdesk.core.db.paper_meta import PaperMeta
from paperdesk.core.db.drafts import Drafts, Revision
from paperdesk.core.db.owned_db import OwnedDb, open_error
from paperdesk.core.db.pdf_paths import relative_pdf_paths, stored_pdf_path
from paperdesk.core.errors import StoreError, UnknownPaperError
from paperdesk.core.db.schema import Migration, migrate, schema_version, script

# the rows live in records.py and the chunk reads in chunk_queries.py; importers keep using this module
__all__ = ["ADOPTED_USER_VERSION", "Chunk", "MIGRATIONS", "NewChunk", "OWNER", "Paper", "Store", "SummaryRevision"]

OWNER = "catalogue"
# Before owners had their own versions, the whole schema was PRAGMA user_version 1-3. Such a
# library is adopted (catalogue 1, desk N) and marked with this user_version, which the
# paperdesk of those days refuses as "newer", so it never writes to tables it does not know.
LEGACY_VERSIONS = (1, 2, 3)
ADOPTED_USER_VERSION = 100

_CATALOGUE_V1 = script("""
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
CREATE TABLE meta (
    key   TEXT PRIMARY KEY,
    value TEXT NOT NULL
);
""")



MIGRATIONS: list[Migration] = [_CATALOGUE_V1, relative_pdf_paths, pdf_hashes.TABLE]


class Store(ChunkQueries, OwnedDb):
    """Typed access to the catalogue. Thread-safe: one connection, one lock (OwnedDb's plumbing)."""

    def __init__(self, path: Path) -> None:
        self.home = Path(path).parent  # relative PDF paths are under it
        super().__init__(path, OWNER)
        self.drafts = Drafts(self)
        self.paper_meta = PaperMeta(self)  # tags and pinned fields (citation keys, DOIs)

    def _open_error(self, exc: sqlite3.DatabaseError) -> str:
        return open_error(f"the library at {self.path}", self.path, exc)

    def _migrate(self) -> None:
        """Run each owner's migrations. The desk's tables come with every open library: summaries
        are drafts, and they are written without a Desk too (the CLI's summarize)."""
        self._adopt_legacy()
        migrate(self._conn, OWNER, MIGRATIONS)
        migrate(self._conn, desk_schema.OWNER, desk_schema.MIGRATIONS)
        migrate(self._conn, paper_meta.OWNER, paper_meta.MIGRATIONS)

    def _adopt_legacy(self) -> None:
        legacy = self._conn.execute("PRAGMA user_version").fetchone()[0]
        if legacy in (0, ADOPTED_USER_VERSION):
            return
        if legacy not in LEGACY_VERSIONS:
            raise StoreError(f"library schema {legacy} is unknown to this paperdesk; upgrade paperdesk")
        if schema_version(self._conn, OWNER) == 0:
            with self.transaction() as conn:
                conn.executemany("INSERT INTO schema_versions (owner, version) VALUES (?, ?)",
                                 [(OWNER, 1), (desk_schema.OWNER, legacy)])
                conn.execute(f"PRAGMA user_version = {ADOPTED_USER_VERSION}")

    def schema_versions(self) -> dict[str, int]:
        """owner -> how many of its migrations have run."""
        return {r[0]: r[1] for r in self.query("SELECT owner, version FROM schema_versions")}

    # -- papers -----------------------------------------------------------------

    def add_paper(
        self,
        paper: Paper,
        pages: Sequence[str],
        chunks: Sequence[NewChunk],
        embeddings: Sequence[bytes] | None = None,
    ) -> list[int]:
        """Insert a paper with its pages and chunks in one transaction; return chunk ids."""
        if embeddings is not None and len(embeddings) != len(chunks):
            raise ValueError("one embedding per chunk")
        paper.added = paper.added or time.time()
        paper.page_count = len(pages)
        ids: list[int] = []
        with self.transaction() as conn:
            conn.execute("DELETE FROM index_tombstones WHERE paper_id = ?", (paper.id,))
            conn.execute(
                """INSERT INTO papers (id, arxiv_id, version, title, authors, abstract, published, updated,
                       categories, pdf_path, source_url, page_count, added, index_state)
                   VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 'pending')""",
                (
                    paper.id, paper.arxiv_id, paper.version, paper.title, json.dumps(paper.authors),
                    paper.abstract, paper.published, paper.updated, json.dumps(paper.categories),
                    stored_pdf_path(paper.pdf_path, self.home), paper.source_url, paper.page_count, paper.added,
                ),
            )
            conn.executemany(
                "INSERT INTO pages (paper_id, page_no, text) VALUES (?, ?, ?)",
                [(paper.id, n, text) for n, text in enumerate(pages, start=1)],
            )
            for ordinal, chunk in enumerate(chunks):
                blob = embeddings[ordinal] if embeddings is not None else None
                cur = conn.execute(
                    """INSERT INTO chunks (paper_id, ordinal, page_start, page_end, section, text, embedding)
                       VALUES (?, ?, ?, ?, ?, ?, ?)""",
                    (paper.id, ordinal, chunk.page_start, chunk.page_end, chunk.section, chunk.text, blob),
                )
                ids.append(int(cur.lastrowid))
            if paper.sha256:
                conn.execute("INSERT OR REPLACE INTO pdf_hashes (paper_id, sha256) VALUES (?, ?)",
                             (paper.id, paper.sha256))
        paper.index_state = "pending"
        return ids

    def vector_generation(self) -> int:
        """Bumped with every change to the set of indexed embeddings."""
        value = self.get_meta("vector_generation")
        return int(value) if value else 0

    def finish_indexing(self, indexed: Sequence[str], cleared: Sequence[str], generation: int) -> None:
        """In one transaction: mark papers indexed, drop tombstones, record the vector generation."""
        with self.transaction() as conn:
            conn.executemany("UPDATE papers SET index_state = 'indexed' WHERE id = ?", [(p,) for p in indexed])
            conn.executemany("DELETE FROM index_tombstones WHERE paper_id = ?", [(p,) for p in cleared])
            conn.execute(
                "INSERT OR REPLACE INTO meta (key, value) VALUES ('vector_generation', ?)", (str(generation),)
            )

    def remove_paper(self, paper_id: str) -> list[int]:
        """Delete a paper and everything hanging off it; leave a tombstone for the indexes."""
        with self.transaction() as conn:
            if conn.execute("SELECT 1 FROM papers WHERE id = ?", (paper_id,)).fetchone() is None:
                raise UnknownPaperError(f"no paper {paper_id} in the library; see `paperdesk list`")
            chunk_ids = [r[0] for r in conn.execute("SELECT id FROM chunks WHERE paper_id = ?", (paper_id,))]
            conn.execute(
                "INSERT OR REPLACE INTO index_tombstones (paper_id, chunk_ids) VALUES (?, ?)",
                (paper_id, json.dumps(chunk_ids)),
            )
            conn.execute("DELETE FROM papers WHERE id = ?", (paper_id,))
        return chunk_ids

    def tombstones(self) -> list[tuple[str, list[int]]]:
        return [(r[0], json.loads(r[1])) for r in self.query("SELECT paper_id, chunk_ids FROM index_tombstones")]

    def get_paper(self, paper_id: str) -> Paper | None:
        rows = self.query("SELECT * FROM papers WHERE id = ?", (paper_id,))
        return paper_from_row(rows[0], self.home) if rows else None

    def find_by_arxiv(self, arxiv_id: str) -> list[Paper]:
        """Papers stored under an arXiv id (any version), newest version first."""
        rows = self.query("SELECT * FROM papers WHERE arxiv_id = ? ORDER BY version DESC", (arxiv_id,))
        return [paper_from_row(r, self.home) for r in rows]

    def list_papers(self, limit: int | None = None, offset: int = 0) -> list[Paper]:
        sql = "SELECT * FROM papers ORDER BY added, id"
        params: tuple[Any, ...] = ()
        if limit is not None:
            sql += " LIMIT ? OFFSET ?"
            params = (limit, offset)
        return [paper_from_row(r, self.home) for r in self.query(sql, params)]

    def count_papers(self) -> int:
        return self.query("SELECT COUNT(*) FROM papers")[0][0]

    def papers_by_ids(self, ids: Sequence[str]) -> dict[str, Paper]:
        if not ids:
            return {}
        marks = ",".join("?" * len(ids))
        return {r["id"]: paper_from_row(r, self.home) for r in self.query(f"SELECT * FROM papers WHERE id IN ({marks})", ids)}

    def pending_papers(self) -> list[str]:
        return [r[0] for r in self.query("SELECT id FROM papers WHERE index_state = 'pending'")]

    # -- summary revisions: the paper's summary draft in the one draft model ----------------------

    def add_revision(self, paper_id: str, text: str, status: str = "draft") -> Revision:
        """Store a new revision of a paper's summary (numbered after the newest) and make it current."""
        return self.drafts.add_summary_revision(paper_id, text, status)

    def set_revision_status(self, paper_id: str, revision: int, status: str) -> None:
        draft_id = self.drafts.summary_of(paper_id)
        if draft_id is not None:
            self.drafts.set_status(draft_id, revision, status)

    def current_revision(self, paper_id: str) -> Revision | None:
        draft_id = self.drafts.summary_of(paper_id)
        return None if draft_id is None else self.drafts.current(draft_id)

    def revisions(self, paper_id: str) -> list[Revision]:
        draft_id = self.drafts.summary_of(paper_id)
        return [] if draft_id is None else self.drafts.revisions(draft_id)

    def move_revision(self, paper_id: str, step: int) -> Revision | None:
        """Undo (step -1) or redo (step +1); None when there is nowhere to go."""
        draft_id = self.drafts.summary_of(paper_id)
        return None if draft_id is None else self.drafts.move(draft_id, step)

    def discard_revisions_after(self, paper_id: str, base: int | None) -> None:
        """Drop revisions newer than `base` (all of them when None) and point the cursor back at `base`."""
        draft_id = self.drafts.summary_of(paper_id)
        if draft_id is not None:
            self.drafts.discard_after(draft_id, base)

    # -- meta -------------------------------------------------------------------

    def get_meta(self, key: str) -> str | None:
        rows = self.query("SELECT value FROM meta WHERE key = ?", (key,))
        return rows[0][0] if rows else None

    def set_meta(self, key: str, value: str) -> None:
        with self.transaction() as conn:
            conn.execute("INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)", (key, value))

    # -- history ----------------------------------------------------------------

    def add_history(self, command: str, state: str = "", outcome: str = "") -> None:
        with self.transaction() as conn:
            conn.execute(
                "INSERT INTO command_history (command, state, outcome, created) VALUES (?, ?, ?, ?)",
                (command, state, outcome, time.time()),
            )

    def history(self, limit: int = 100) -> list[tuple[str, str, str, float]]:
        rows = self.query(
            "SELECT command, state, outcome, created FROM command_history ORDER BY id DESC LIMIT ?", (limit,)
        )
        return [tuple(r) for r in reversed(rows)]  # type: ignore[misc]

    def clear_history(self) -> int:
        with self.transaction() as conn:
            return conn.execute("DELETE FROM command_history").rowcount

