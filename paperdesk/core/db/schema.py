"""Per-owner schema migrations in the library's one SQLite file.

Each owner of tables (the catalogue, the desk's drafts and session, the
research tracker, the memory graph, ...) keeps its own schema as an ordered
list of Python functions. `migrate` records how many of them ran in the
`schema_versions` table and runs the rest, each in its own transaction, so a
process killed mid-migration leaves the last finished version recorded.
"""

from __future__ import annotations

import sqlite3
from typing import Callable, Sequence

from paperdesk.core.errors import StoreError

Migration = Callable[[sqlite3.Connection], None]

_TABLE = "CREATE TABLE IF NOT EXISTS schema_versions (owner TEXT PRIMARY KEY, version INTEGER NOT NULL)"


def schema_version(conn: sqlite3.Connection, owner: str) -> int:
    """How many of `owner`'s migrations have run (0 for a new library)."""
    conn.execute(_TABLE)
    row = conn.execute("SELECT version FROM schema_versions WHERE owner = ?", (owner,)).fetchone()
    return int(row[0]) if row else 0


def migrate(conn: sqlite3.Connection, owner: str, migrations: Sequence[Migration]) -> int:
    """Run `owner`'s migrations that have not run yet; return the version now in force.

    `conn` must be in autocommit mode (isolation_level=None); each migration
    runs inside BEGIN IMMEDIATE ... COMMIT together with its version bump.
    """
    current = schema_version(conn, owner)
    if current > len(migrations):
        raise StoreError(
            f"the {owner} tables are at schema {current}, newer than this paperdesk ({len(migrations)}); "
            "upgrade paperdesk"
        )
    for version in range(current + 1, len(migrations) + 1):
        conn.execute("BEGIN IMMEDIATE")
        try:
            if schema_version(conn, owner) >= version:  # another process opening the library ran it meanwhile
                conn.execute("COMMIT")
                continue
            migrations[version - 1](conn)
            conn.execute(
                "INSERT INTO schema_versions (owner, version) VALUES (?, ?) "
                "ON CONFLICT(owner) DO UPDATE SET version = excluded.version",
                (owner, version),
            )
        except BaseException:
            conn.execute("ROLLBACK")
            raise
        conn.execute("COMMIT")
    return len(migrations)


def script(sql: str) -> Migration:
    """A migration made of plain DDL statements, run one by one (no splitting on ';' inside strings)."""

    def run(conn: sqlite3.Connection) -> None:
        buffer = ""
        for line in sql.splitlines(keepends=True):
            buffer += line
            if sqlite3.complete_statement(buffer):
                conn.execute(buffer)
                buffer = ""
        if buffer.strip():
            raise StoreError(f"incomplete SQL statement in a migration: {buffer.strip()[:80]}")

    return run
