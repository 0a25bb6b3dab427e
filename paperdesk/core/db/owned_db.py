"""A connection of its own to the library's SQLite file, for one owner of tables.

The memory graph and the discussions keep their tables in the library's file
(one backup, one place) but migrate them as their own owner through
`schema.migrate`, and open their own connection so they never depend on the
catalogue Store's internals. WAL mode lets both connections work side by side.
"""

from __future__ import annotations

import shutil
import sqlite3
import threading
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Iterator, Sequence

from paperdesk.core.db.diskspace import is_disk_full
from paperdesk.core.errors import StoreError
from paperdesk.core.db.schema import Migration, migrate


def connect(path: Path) -> sqlite3.Connection:
    """The library file's connection settings, shared by every owner: autocommit, WAL, foreign keys, Row rows."""
    conn = sqlite3.connect(path, check_same_thread=False, isolation_level=None, timeout=10.0)
    conn.row_factory = sqlite3.Row
    conn.execute("PRAGMA journal_mode=WAL")
    conn.execute("PRAGMA synchronous=NORMAL")
    conn.execute("PRAGMA foreign_keys=ON")
    return conn


def open_error(what: str, path: Path, exc: sqlite3.DatabaseError) -> str:
    """Why the library file did not open, and the fix: free space on a full disk, the rebuild when damaged."""
    try:
        nearly_full = shutil.disk_usage(path.parent).free < 1_000_000
    except OSError:
        nearly_full = False
    if is_disk_full(exc) or nearly_full:
        return f"cannot open {what}: the disk is full ({exc}); free some space and try again"
    return (f"cannot open {what}: {exc}; `paperdesk doctor` says what is wrong, and `paperdesk doctor --rebuild` "
            "rebuilds a damaged library from its PDFs (the damaged file is kept)")


class OwnedDb:
    """One autocommit connection, one lock, and `owner`'s migrations applied on open."""

    def __init__(self, path: Path, owner: str, migrations: Sequence[Migration] = ()) -> None:
        self.path = Path(path)
        self.path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)  # a new library home is private
        self.owner = owner
        self._migrations = migrations
        self._lock = threading.RLock()
        try:
            self._conn = connect(self.path)
            self._migrate()
        except sqlite3.DatabaseError as exc:
            raise StoreError(self._open_error(exc)) from None

    def _migrate(self) -> None:
        migrate(self._conn, self.owner, self._migrations)

    def _open_error(self, exc: sqlite3.DatabaseError) -> str:
        return open_error(f"the {self.owner} tables in {self.path}", self.path, exc)

    def close(self) -> None:
        with self._lock:
            self._conn.close()

    @contextmanager
    def transaction(self) -> Iterator[sqlite3.Connection]:
        """One atomic write: commit on success, roll back on any exception."""
        with self._lock:
            self._conn.execute("BEGIN IMMEDIATE")
            try:
                yield self._conn
            except BaseException:
                self._conn.execute("ROLLBACK")
                raise
            self._conn.execute("COMMIT")

    def query(self, sql: str, params: Sequence[Any] = ()) -> list[sqlite3.Row]:
        with self._lock:
            return self._conn.execute(sql, params).fetchall()
