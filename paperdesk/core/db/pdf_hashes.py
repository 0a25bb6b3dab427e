"""Which PDF each paper was made from, by the sha256 of its bytes: the same file under another name (or a
local copy of a paper already added from arXiv) is recognised as the paper already in the library."""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import TYPE_CHECKING

from paperdesk.core.db.schema import script

if TYPE_CHECKING:
    from paperdesk.core.db.store import Store

TABLE = script("""
CREATE TABLE IF NOT EXISTS pdf_hashes (
    paper_id TEXT PRIMARY KEY REFERENCES papers(id) ON DELETE CASCADE,
    sha256   TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS pdf_hashes_sha ON pdf_hashes(sha256);
""")

BLOCK = 1 << 20


def file_sha256(path: Path) -> str:
    """The sha256 of a file's bytes, read in 1 MiB blocks."""
    digest = hashlib.sha256()
    with Path(path).open("rb") as f:
        while block := f.read(BLOCK):
            digest.update(block)
    return digest.hexdigest()


def record(store: "Store", paper_id: str, sha256: str) -> None:
    with store.transaction() as conn:
        conn.execute("INSERT OR REPLACE INTO pdf_hashes (paper_id, sha256) VALUES (?, ?)", (paper_id, sha256))


def paper_with(store: "Store", sha256: str) -> str | None:
    """The id of the paper made from a PDF with these bytes, if any (hashing papers added before hashes were
    kept, once)."""
    fill_missing(store)
    rows = store.query("SELECT paper_id FROM pdf_hashes WHERE sha256 = ? ORDER BY paper_id LIMIT 1", (sha256,))
    return str(rows[0][0]) if rows else None


def fill_missing(store: "Store") -> int:
    """Hash the stored PDF of every paper that has no hash yet (libraries made before hashes were kept);
    return how many were hashed. A missing or unreadable PDF is skipped and tried again next time."""
    from paperdesk.core.db.pdf_paths import full_pdf_path

    rows = store.query("SELECT id, pdf_path FROM papers WHERE id NOT IN (SELECT paper_id FROM pdf_hashes)")
    done = 0
    for row in rows:
        path = full_pdf_path(row[1], store.home) if row[1] else None
        try:
            digest = file_sha256(Path(path)) if path else None
        except OSError:
            digest = None
        if digest:
            record(store, row[0], digest)
            done += 1
    return done
