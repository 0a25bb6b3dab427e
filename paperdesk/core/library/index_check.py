"""Do the keyword and vector indexes hold exactly the chunks in the store? Read-only.

Opening a `Library` repairs what it can (and takes the index writer), so this
check reads the files directly instead: the SQLite catalogue opened read-only,
the tantivy directory opened for searching, and the vector cache's `.npy` files
memory-mapped. It changes nothing; `Library.rebuild_indexes` (`paperdesk
reindex`) is the fix for whatever it finds.
"""

from __future__ import annotations

import json
import sqlite3
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from paperdesk.core.search.vectors import LAYOUT
from paperdesk.core.progress import counted

# The data dir layout, as Library creates it.
STORE_FILE = "library.sqlite"
KEYWORD_DIR = Path("index") / "keyword"
VECTOR_DIR = Path("index")


@dataclass
class IndexCheck:
    """Counts of indexed chunks in the store and in each index, and what does not match."""

    store_chunks: int = 0
    keyword_docs: int | None = None
    vector_rows: int | None = None
    problems: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.problems


def _describe(name: str, have: set[int], want: set[int]) -> str | None:
    missing, extra = len(want - have), len(have - want)
    if not missing and not extra:
        return None
    parts = ([f"lacks {counted(missing, 'chunk')} of the store"] if missing else []) + (
        [f"holds {counted(extra, 'chunk')} the store does not have"] if extra else [])
    return f"the {name} index " + " and ".join(parts)


def store_chunk_ids(conn: sqlite3.Connection) -> set[int]:
    rows = conn.execute(
        "SELECT c.id FROM chunks c JOIN papers p ON p.id = c.paper_id WHERE p.index_state = 'indexed'"
    )
    return {int(r[0]) for r in rows}


def keyword_chunk_ids(directory: Path) -> list[int]:
    """Every chunk id in the tantivy index (duplicates kept, so they can be reported)."""
    import tantivy

    index = tantivy.Index.open(str(directory))
    searcher = index.searcher()
    if searcher.num_docs == 0:
        return []
    hits = searcher.search(tantivy.Query.all_query(), limit=searcher.num_docs, count=False).hits
    return [int(v) for v in searcher.fast_field_values("chunk_id", [address for _score, address in hits])]


def check_indexes(home: Path) -> IndexCheck:
    """Compare the indexed chunks in the store with the keyword index and the vector cache."""
    result = IndexCheck()
    db = home / STORE_FILE
    if not db.exists():
        return result  # no library yet: nothing to disagree with
    conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    try:
        want = store_chunk_ids(conn)
        row = conn.execute("SELECT value FROM meta WHERE key = 'vector_generation'").fetchone()
        generation = int(row[0]) if row else 0
        pending = conn.execute("SELECT COUNT(*) FROM papers WHERE index_state = 'pending'").fetchone()[0]
        tombstones = conn.execute("SELECT COUNT(*) FROM index_tombstones").fetchone()[0]
    finally:
        conn.close()
    result.store_chunks = len(want)
    if pending or tombstones:
        result.problems.append(f"{counted(pending, 'paper')} half-added and {tombstones} half-removed "
                               "by a stopped process")

    keyword_dir = home / KEYWORD_DIR
    if not (keyword_dir / "meta.json").exists():
        if want:
            result.problems.append("the keyword index is missing")
    else:
        try:
            ids = keyword_chunk_ids(keyword_dir)
        except (ValueError, OSError) as exc:
            result.problems.append(f"the keyword index cannot be read ({str(exc)[:120]})")
        else:
            result.keyword_docs = len(ids)
            if len(ids) != len(set(ids)):
                result.problems.append(f"the keyword index holds {counted(len(ids) - len(set(ids)), 'duplicate chunk')}")
            if problem := _describe("keyword", set(ids), want):
                result.problems.append(problem)

    vector_dir = home / VECTOR_DIR
    try:
        info = json.loads((vector_dir / "vectors.json").read_text())
        ids_arr = np.load(vector_dir / "vectors.ids.npy")
        matrix = np.load(vector_dir / "vectors.npy", mmap_mode="r")
    except FileNotFoundError:
        if want:
            result.problems.append("the vector cache is missing")
        return result
    except (OSError, ValueError) as exc:
        result.problems.append(f"the vector cache cannot be read ({type(exc).__name__})")
        return result
    result.vector_rows = len(ids_arr)
    if info.get("generation") != generation:
        result.problems.append(f"the vector cache is stale (generation {info.get('generation')}, store {generation})")
    if matrix.ndim != 2 or matrix.shape[0] != len(ids_arr):
        result.problems.append(f"the vector cache has {matrix.shape[0]} vectors for {len(ids_arr)} ids")
    if problem := _describe("vector", {int(i) for i in ids_arr}, want):
        result.problems.append(problem)
    if info.get("layout") == LAYOUT:
        result.problems.extend(_tail_problems(vector_dir, info, {int(i) for i in ids_arr}))
    return result


def _tail_problems(vector_dir: Path, info: dict, chunk_ids: set[int]) -> list[str]:
    """What is wrong with the cached tail vectors (search/segments.py): unreadable, miscounted, or orphaned."""
    try:
        tail_ids = np.load(vector_dir / "vectors.tail_ids.npy")
        tails = np.load(vector_dir / "vectors.tails.npy", mmap_mode="r")
    except (OSError, ValueError) as exc:
        return [f"the vector cache's tail vectors cannot be read ({type(exc).__name__})"]
    problems = []
    if tails.ndim != 2 or tails.shape[0] != len(tail_ids) or len(tail_ids) != info.get("tails"):
        problems.append(f"the vector cache has {tails.shape[0]} tail vectors for {len(tail_ids)} ids")
    orphans = {int(i) for i in tail_ids} - chunk_ids
    if orphans:
        problems.append(f"the vector cache holds tail vectors of {counted(len(orphans), 'chunk')} it does not index")
    return problems
