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
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Sequence

if TYPE_CHECKING:
    import numpy as np

from paperdesk.core.db import desk_schema
from paperdesk.core.db import paper_meta
from paperdesk.core.db.paper_meta import PaperMeta
from paperdesk.core.db.drafts import Drafts, Revision
from paperdesk.core.db.owned_db import OwnedDb, open_error
from paperdesk.core.db.pdf_paths import full_pdf_path, relative_pdf_paths, stored_pdf_path
from paperdesk.core.errors import StoreError, UnknownPaperError
from paperdesk.core.db.schema import Migration, migrate, schema_version, script

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



MIGRATIONS: list[Migration] = [_CATALOGUE_V1, relative_pdf_paths]


@dataclass
class Paper:
    id: str
    title: str
    authors: list[str] = field(default_factory=list)
    abstract: str = ""
    arxiv_id: str | None = None
    version: int | None = None
    published: str | None = None
    updated: str | None = None
    categories: list[str] = field(default_factory=list)
    pdf_path: str | None = None
    source_url: str | None = None
    page_count: int = 0
    added: float = 0.0
    index_state: str = "pending"

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "title": self.title,
            "authors": self.authors,
            "added": self.added,
            "arxiv_id": self.arxiv_id,
            "version": self.version,
            "published": self.published,
            "updated": self.updated,
            "categories": self.categories,
            "abstract": self.abstract,
            "page_count": self.page_count,
            "pdf_path": self.pdf_path,
        }


@dataclass
class Chunk:
    id: int
    paper_id: str
    ordinal: int
    page_start: int
    page_end: int
    section: str
    text: str


SummaryRevision = Revision  # a summary's revision is a draft revision of kind "summary"


@dataclass
class NewChunk:
    """A chunk not yet stored: what ingest produces."""

    page_start: int
    page_end: int
    section: str
    text: str


def _paper_from_row(row: sqlite3.Row, home: Path) -> Paper:
    return Paper(
        id=row["id"],
        title=row["title"],
        authors=json.loads(row["authors"]),
        abstract=row["abstract"],
        arxiv_id=row["arxiv_id"],
        version=row["version"],
        published=row["published"],
        updated=row["updated"],
        categories=json.loads(row["categories"]),
        pdf_path=full_pdf_path(row["pdf_path"], home),
        source_url=row["source_url"],
        page_count=row["page_count"],
        added=row["added"],
        index_state=row["index_state"],
    )


class Store(OwnedDb):
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
        return _paper_from_row(rows[0], self.home) if rows else None

    def find_by_arxiv(self, arxiv_id: str) -> list[Paper]:
        """Papers stored under an arXiv id (any version), newest version first."""
        rows = self.query("SELECT * FROM papers WHERE arxiv_id = ? ORDER BY version DESC", (arxiv_id,))
        return [_paper_from_row(r, self.home) for r in rows]

    def list_papers(self, limit: int | None = None, offset: int = 0) -> list[Paper]:
        sql = "SELECT * FROM papers ORDER BY added, id"
        params: tuple[Any, ...] = ()
        if limit is not None:
            sql += " LIMIT ? OFFSET ?"
            params = (limit, offset)
        return [_paper_from_row(r, self.home) for r in self.query(sql, params)]

    def count_papers(self) -> int:
        return self.query("SELECT COUNT(*) FROM papers")[0][0]

    def papers_by_ids(self, ids: Sequence[str]) -> dict[str, Paper]:
        if not ids:
            return {}
        marks = ",".join("?" * len(ids))
        return {r["id"]: _paper_from_row(r, self.home) for r in self.query(f"SELECT * FROM papers WHERE id IN ({marks})", ids)}

    def pending_papers(self) -> list[str]:
        return [r[0] for r in self.query("SELECT id FROM papers WHERE index_state = 'pending'")]

    # -- pages and chunks -------------------------------------------------------

    def page_text(self, paper_id: str, page_no: int) -> str | None:
        rows = self.query("SELECT text FROM pages WHERE paper_id = ? AND page_no = ?", (paper_id, page_no))
        return rows[0][0] if rows else None

    def chunks_of(self, paper_id: str) -> list[Chunk]:
        rows = self.query(
            "SELECT id, paper_id, ordinal, page_start, page_end, section, text FROM chunks "
            "WHERE paper_id = ? ORDER BY ordinal",
            (paper_id,),
        )
        return [Chunk(*r) for r in rows]

    def chunks_by_ids(self, ids: Sequence[int]) -> dict[int, Chunk]:
        out: dict[int, Chunk] = {}
        for start in range(0, len(ids), 900):
            part = list(ids[start : start + 900])
            marks = ",".join("?" * len(part))
            for r in self.query(
                f"SELECT id, paper_id, ordinal, page_start, page_end, section, text FROM chunks WHERE id IN ({marks})",
                part,
            ):
                out[r[0]] = Chunk(*r)
        return out

    def embeddings_of(self, paper_id: str | None = None) -> list[tuple[int, bytes | None]]:
        """(chunk id, embedding blob) for one paper or for every indexed paper."""
        if paper_id is None:
            sql = (
                "SELECT c.id, c.embedding FROM chunks c JOIN papers p ON p.id = c.paper_id "
                "WHERE p.index_state = 'indexed' ORDER BY c.id"
            )
            return [(r[0], r[1]) for r in self.query(sql)]
        return [(r[0], r[1]) for r in self.query("SELECT id, embedding FROM chunks WHERE paper_id = ? ORDER BY id", (paper_id,))]

    def embeddings_by_ids(self, ids: Sequence[int]) -> dict[int, "np.ndarray"]:
        """Chunk id -> stored opening unit vector (float32), for the ids that have one."""
        import numpy as np

        from paperdesk.core.search.embedder import DIM

        out: dict[int, np.ndarray] = {}
        for start in range(0, len(ids), 900):
            part = list(ids[start : start + 900])
            marks = ",".join("?" * len(part))
            for cid, blob in self.query(f"SELECT id, embedding FROM chunks WHERE id IN ({marks})", part):
                if blob is not None and len(blob) >= 4 * DIM:  # the opening vector; tails follow (search/segments.py)
                    out[cid] = np.frombuffer(blob, dtype=np.float32, count=DIM)
        return out

    def count_chunks(self, indexed_only: bool = False) -> int:
        if indexed_only:
            sql = "SELECT COUNT(*) FROM chunks c JOIN papers p ON p.id = c.paper_id WHERE p.index_state = 'indexed'"
            return self.query(sql)[0][0]
        return self.query("SELECT COUNT(*) FROM chunks")[0][0]

    def chunk_ids_of(self, paper_ids: Sequence[str]) -> list[int]:
        marks = ",".join("?" * len(paper_ids))
        return [r[0] for r in self.query(f"SELECT id FROM chunks WHERE paper_id IN ({marks})", paper_ids)]

    def indexed_chunks(self, paper_ids: Sequence[str] | None = None) -> list[tuple[Chunk, str]]:
        """(chunk, paper title) for the given papers, or for every indexed paper."""
        sql = (
            "SELECT c.id, c.paper_id, c.ordinal, c.page_start, c.page_end, c.section, c.text, p.title "
            "FROM chunks c JOIN papers p ON p.id = c.paper_id "
        )
        if paper_ids is None:
            rows = self.query(sql + "WHERE p.index_state = 'indexed' ORDER BY c.id")
        else:
            marks = ",".join("?" * len(paper_ids))
            rows = self.query(sql + f"WHERE p.id IN ({marks}) ORDER BY c.id", list(paper_ids))
        return [(Chunk(*r[:7]), r[7]) for r in rows]

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

