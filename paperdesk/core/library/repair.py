"""Keeping the derived indexes equal to the store, by chunk id, across processes and crashes.

SQLite is the source of truth; the tantivy index and the vector cache are
derived from the chunks of papers marked 'indexed'. On open, under the writer
lock, a half-done add (a 'pending' paper) is rolled back, never finished: a
failed or killed add leaves nothing, and opening never depends on redoing
someone else's work. Then both indexes are compared with the store id by id
and rebuilt where they differ. Without the lock (another process is writing)
the library opens read-only from what is committed.
"""

from __future__ import annotations

import logging
import os
import sqlite3
import time
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from paperdesk.core.errors import StoreError
from paperdesk.core.db.pdf_paths import owned_pdf
from paperdesk.core.progress import counted

if TYPE_CHECKING:
    from paperdesk.core.library.library import Library

_log = logging.getLogger("paperdesk.repair")
_log.addHandler(logging.NullHandler())  # the faces say lib.notices themselves; the CLI adds a stderr handler
ORPHAN_AGE = 3600.0  # seconds before a download's temp file counts as left behind
PARTIAL_AGE = 900.0  # a partial download untouched this long belongs to no live download
LOST_AND_FOUND = "lost+found"  # PDFs found in papers/ that no paper listed; never deleted


def lost_and_found_notice(home: Path, count: int) -> str:
    return (f"moved {counted(count, 'PDF')} that no paper in the library lists from papers/ to "
            f"{home / LOST_AND_FOUND}; "
            "nothing was deleted: `paperdesk doctor --rebuild` adds them back")


def indexed_chunk_ids(lib: "Library") -> np.ndarray:
    """Sorted ids of the chunks every index must hold."""
    rows = lib.store.query(
        "SELECT c.id FROM chunks c JOIN papers p ON p.id = c.paper_id WHERE p.index_state = 'indexed' ORDER BY c.id"
    )
    return np.fromiter((r[0] for r in rows), dtype=np.int64, count=len(rows))


def reconcile(lib: "Library") -> None:
    """Bring the indexes in line with the store; read-only if another process is writing."""
    try:
        with lib.lock.hold(wait=0) as held:
            if held:
                repair(lib)
                return
    except Exception as exc:  # a repair that cannot write (disk full, read-only fs) must not stop reading
        _log.info("library repair skipped (opened read-only from what is committed): %s", exc)
    catch_up(lib, save=False)


def repair(lib: "Library") -> list[str]:
    """Under the writer lock: roll back pending adds, apply removals, rebuild indexes that differ."""
    fixed = [f"rolled back unfinished add of {pid}" for pid in roll_back_pending(lib, apply=False)]
    tombstones = lib.store.tombstones()
    if tombstones:
        catch_up(lib, save=False)
        lib._index([], [pid for pid, _ in tombstones], [c for _, ids in tombstones for c in ids])
    want = indexed_chunk_ids(lib)
    if not _vectors_match(lib, want):
        lib._stored_vectors(None).load_into(lib.vectors)
        lib.vectors.save_cache(lib.store.vector_generation())
        fixed.append("rebuilt the vector cache from the store")
    lib.keyword.index.reload()
    if not np.array_equal(np.asarray(lib.keyword.chunk_ids(), dtype=np.int64), want):
        lib._rebuild_keyword()
        fixed.append("rebuilt the keyword index from the store")
    moved = remove_stray_files(lib, locked=True)
    if moved:
        lib.notices.append(lost_and_found_notice(lib.home, len(moved)))
        _log.warning(lib.notices[-1])
    for line in fixed:
        _log.info(line)  # expected after a crash; the log keeps it, the terminal stays quiet
    return fixed


def roll_back_pending(lib: "Library", apply: bool = True) -> list[str]:
    """Under the writer lock every 'pending' paper belongs to a dead add: remove it (and its PDF).

    With apply=False the removals stay as tombstones for the caller to apply to the indexes."""
    pending = lib.store.pending_papers()
    for pid in pending:
        paper = lib.store.get_paper(pid)
        chunk_ids = lib.store.remove_paper(pid)  # leaves a tombstone until the indexes drop it
        own = owned_pdf(lib.home, paper.pdf_path) if paper is not None else None
        if own is not None:  # the add's own copy; never a file outside the library
            own.unlink(missing_ok=True)
        if apply:
            catch_up(lib)
            lib._index([], [pid], chunk_ids)
    return pending


def _vectors_match(lib: "Library", want: np.ndarray) -> bool:
    generation = lib.store.vector_generation()
    if lib.vectors.generation != generation and not lib.vectors.load_cache(generation):
        return False
    return np.array_equal(np.sort(lib.vectors.ids), want)


def catch_up(lib: "Library", save: bool = False) -> None:
    """Make this process's in-memory indexes see what other processes committed."""
    generation = lib.store.vector_generation()
    if lib.vectors.generation == generation:
        return
    want = indexed_chunk_ids(lib)
    if not (lib.vectors.load_cache(generation) and np.array_equal(np.sort(lib.vectors.ids), want)):
        lib._stored_vectors(None).load_into(lib.vectors)
        lib.vectors.generation = generation
        if save:
            lib.vectors.save_cache(generation)
    lib.keyword.index.reload()


def stray_files(lib: "Library", min_age: float = 0.0) -> list[Path]:
    """Files no paper owns: unowned PDFs, temp files, partial downloads (older than `min_age` s)."""
    known = {Path(p.pdf_path).name for p in lib.store.list_papers() if p.pdf_path}
    cutoff = time.time() - min_age
    out = []
    for directory in (lib.papers_dir, lib.home / "index"):
        for path in directory.iterdir() if directory.is_dir() else ():
            name = path.name
            stray = name.endswith((".tmp", ".part")) or (directory == lib.papers_dir and path.suffix == ".pdf"
                                                          and name not in known)
            try:
                if stray and path.is_file() and path.stat().st_mtime <= cutoff:
                    out.append(path)
            except OSError:
                continue
    return out


def remove_stray_files(lib: "Library", locked: bool) -> list[Path]:
    """Clear left-behind files; return the PDFs moved to lost+found.

    A PDF no paper lists is user data (the catalogue may be the part that was lost): it is moved
    to `<home>/lost+found`, never deleted, and `paperdesk doctor --rebuild` adds it back. Temp
    files and partial downloads are deleted: under the lock at once, downloads (which run outside
    the lock) only once stale."""
    moved = []
    for path in stray_files(lib):
        name = path.name
        if name.endswith(".part"):
            age = PARTIAL_AGE
        elif ".download.tmp" in name:
            age = ORPHAN_AGE
        else:
            age = 0.0 if locked else ORPHAN_AGE
        try:
            if path.stat().st_mtime > time.time() - age:
                continue
            if name.endswith((".tmp", ".part")):
                path.unlink(missing_ok=True)
            else:
                moved.append(move_to_lost_and_found(lib.home, path))
        except OSError as exc:
            _log.info("left %s in place: %s", path, exc)
    return moved


def move_to_lost_and_found(home: Path, path: Path) -> Path:
    """Move `path` into `<home>/lost+found` under a free name; return where it went."""
    folder = home / LOST_AND_FOUND
    folder.mkdir(mode=0o700, exist_ok=True)
    target = folder / path.name
    n = 1
    while target.exists():
        n += 1
        target = folder / f"{path.stem} ({n}){path.suffix}"
    os.replace(path, target)
    return target


def integrity_problems(lib: "Library") -> list[str]:
    """Everything that would make the library wrong: for tests and `bench faults`. Empty means clean."""
    problems = []
    try:
        result = lib.store.query("PRAGMA integrity_check")[0][0]
    except sqlite3.DatabaseError as exc:
        return [f"integrity_check failed: {exc}"]
    if result != "ok":
        problems.append(f"integrity_check: {result}")
    want = indexed_chunk_ids(lib)
    if lib.store.pending_papers():
        problems.append(f"pending papers: {lib.store.pending_papers()}")
    if lib.store.tombstones():
        problems.append("unapplied removals")
    keyword = np.asarray(lib.keyword.chunk_ids(), dtype=np.int64)
    if not np.array_equal(keyword, want):
        problems.append(f"keyword index holds {len(keyword)} chunks, store {len(want)}")
    vectors = np.sort(lib.vectors.ids)
    if not np.array_equal(vectors, want):
        problems.append(f"vector index holds {len(vectors)} chunks, store {len(want)}")
    strays = stray_files(lib)
    if strays:
        problems.append("stray files: " + ", ".join(p.name for p in strays))
    return problems


def refuse_a_lost_catalogue(db: Path, papers: Path) -> None:
    """A zero-byte library.sqlite beside PDFs is a lost catalogue, not a new library: opening it
    would make an empty one and hide every paper."""
    try:
        lost = db.stat().st_size == 0 and any(p.suffix == ".pdf" for p in papers.iterdir())
    except OSError:
        return
    if lost:
        raise StoreError(f"{db} is empty (zero bytes) but {papers} holds PDFs: the catalogue was lost; "
                         "`paperdesk doctor --rebuild` adds them back (nothing is deleted)")
