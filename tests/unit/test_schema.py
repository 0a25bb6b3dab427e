import sqlite3

import pytest

from paperdesk.core.errors import StoreError
from paperdesk.core.db.schema import migrate, schema_version, script


def _conn() -> sqlite3.Connection:
    return sqlite3.connect(":memory:", isolation_level=None)


def test_runs_only_new_migrations_per_owner():
    conn = _conn()
    ran: list[str] = []
    steps = [script("CREATE TABLE a (x TEXT DEFAULT 'p;q');"), lambda c: ran.append("two")]
    assert migrate(conn, "one", steps) == 2
    assert migrate(conn, "one", steps) == 2
    assert ran == ["two"]
    assert schema_version(conn, "one") == 2 and schema_version(conn, "other") == 0
    conn.execute("INSERT INTO a DEFAULT VALUES")
    assert conn.execute("SELECT x FROM a").fetchone()[0] == "p;q"


def test_failed_migration_rolls_back_and_keeps_version():
    conn = _conn()

    def boom(c):
        c.execute("CREATE TABLE b (y)")
        raise RuntimeError("disk gone")

    with pytest.raises(RuntimeError):
        migrate(conn, "o", [script("CREATE TABLE a (x);"), boom])
    assert schema_version(conn, "o") == 1
    assert conn.execute("SELECT name FROM sqlite_master WHERE name='b'").fetchone() is None


def test_newer_schema_is_refused():
    conn = _conn()
    migrate(conn, "o", [script("CREATE TABLE a (x);"), script("CREATE TABLE b (x);")])
    with pytest.raises(StoreError, match="newer than this paperdesk"):
        migrate(conn, "o", [script("CREATE TABLE a (x);")])


def test_a_migration_another_process_ran_meanwhile_is_not_run_again(tmp_path):
    """Two processes open a new library at once: the one that loses the race must not run v1 again."""
    path = tmp_path / "lib.sqlite"
    steps = [script("CREATE TABLE a (x);")]
    other = sqlite3.connect(path, isolation_level=None)

    class Racing(sqlite3.Connection):
        raced = False

        def execute(self, sql, *args):
            if sql == "BEGIN IMMEDIATE" and not self.raced:
                self.raced = True
                migrate(other, "o", steps)  # the other process wins between our version read and our BEGIN
            return super().execute(sql, *args)

    conn = sqlite3.connect(path, isolation_level=None, factory=Racing)
    assert migrate(conn, "o", steps) == 1  # no "table a already exists"
    assert conn.raced and schema_version(conn, "o") == 1
