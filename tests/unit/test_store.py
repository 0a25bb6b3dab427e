import sqlite3
from pathlib import Path

import pytest

from paperdesk.core.errors import StoreError, UnknownPaperError
from paperdesk.core.db.store import NewChunk, Paper, Store


def _paper(pid: str = "2302.07302v1") -> Paper:
    return Paper(id=pid, title="CiteSee", authors=["Joseph Chee Chang"], arxiv_id=pid[:10], version=1)


def test_schema_wal_and_version(tmp_path: Path):
    store = Store(tmp_path / "lib.sqlite")
    assert store.schema_versions() == {"catalogue": 3, "desk": 4, "paper_meta": 1}
    mode = sqlite3.connect(tmp_path / "lib.sqlite").execute("PRAGMA journal_mode").fetchone()[0]
    assert mode == "wal"
    tables = {r[0] for r in sqlite3.connect(tmp_path / "lib.sqlite").execute("SELECT name FROM sqlite_master")}
    assert {"papers", "pages", "chunks", "drafts", "draft_revisions", "notes", "reports", "command_history"} <= tables
    assert not {"summary_revisions", "summary_cursor"} & tables  # merged into the one draft model


def test_add_read_remove_roundtrip(tmp_path: Path):
    store = Store(tmp_path / "lib.sqlite")
    ids = store.add_paper(_paper(), ["page one", "page two"], [NewChunk(1, 2, "1 Introduction", "text")], [b"\0" * 8])
    assert len(ids) == 1
    paper = store.get_paper("2302.07302v1")
    assert paper is not None and paper.page_count == 2 and paper.index_state == "pending"
    assert store.page_text("2302.07302v1", 2) == "page two"
    assert store.chunks_of("2302.07302v1")[0].section == "1 Introduction"
    store.finish_indexing(["2302.07302v1"], [], 1)
    assert store.get_paper("2302.07302v1").index_state == "indexed"
    assert store.vector_generation() == 1
    assert store.remove_paper("2302.07302v1") == ids
    assert store.get_paper("2302.07302v1") is None
    assert store.chunks_of("2302.07302v1") == []  # cascaded
    assert store.tombstones() == [("2302.07302v1", ids)]
    with pytest.raises(UnknownPaperError):
        store.remove_paper("2302.07302v1")


def test_failed_write_rolls_back_everything(tmp_path: Path):
    store = Store(tmp_path / "lib.sqlite")
    with pytest.raises(ValueError):
        store.add_paper(_paper(), ["p"], [NewChunk(1, 1, "", "a"), NewChunk(1, 1, "", "b")], [b"x"])
    with pytest.raises(sqlite3.IntegrityError):  # duplicate id: the second insert fails inside the transaction
        store.add_paper(_paper(), ["p"], [])
        store.add_paper(_paper(), ["q"], [NewChunk(1, 1, "", "c")])
    assert store.count_papers() == 1
    assert store.count_chunks() == 0
    assert store.page_text("2302.07302v1", 1) == "p"


def test_newer_schema_is_refused(tmp_path: Path):
    path = tmp_path / "lib.sqlite"
    Store(path).close()
    conn = sqlite3.connect(path)
    conn.execute("UPDATE schema_versions SET version = 99 WHERE owner = 'desk'")
    conn.commit()
    conn.close()
    with pytest.raises(StoreError, match="newer"):
        Store(path)


def test_garbage_file_is_a_clear_error(tmp_path: Path):
    path = tmp_path / "lib.sqlite"
    path.write_bytes(b"this is not a database" * 100)
    with pytest.raises(StoreError, match="paperdesk doctor --rebuild"):
        Store(path)


def test_history_is_kept_in_order(tmp_path: Path):
    store = Store(tmp_path / "lib.sqlite")
    store.add_history("find citations", "initial", "ok")
    store.add_history("summarize 1", "select-new", "ok")
    assert [h[0] for h in store.history()] == ["find citations", "summarize 1"]


def test_revisions_undo_redo_and_branching(tmp_path: Path):
    store = Store(tmp_path / "lib.sqlite")
    store.add_paper(_paper(), ["p"], [])
    assert store.current_revision("2302.07302v1") is None
    assert store.move_revision("2302.07302v1", -1) is None
    for text in ("one", "two", "three"):
        store.add_revision("2302.07302v1", text)
    assert store.current_revision("2302.07302v1").text == "three"
    assert store.move_revision("2302.07302v1", -1).text == "two"
    assert store.move_revision("2302.07302v1", -1).text == "one"
    assert store.move_revision("2302.07302v1", -1) is None
    assert store.move_revision("2302.07302v1", +1).text == "two"
    branch = store.add_revision("2302.07302v1", "four", status="interrupted")
    assert branch.revision == 4 and store.move_revision("2302.07302v1", +1) is None  # redo dropped
    store.set_revision_status("2302.07302v1", 4, "final")
    reopened = Store(tmp_path / "lib.sqlite")
    current = reopened.current_revision("2302.07302v1")
    assert (current.revision, current.text, current.status) == (4, "four", "final")
    assert [r.revision for r in reopened.revisions("2302.07302v1")] == [1, 2, 3, 4]
    with pytest.raises(UnknownPaperError):
        reopened.add_revision("nope", "x")


def test_pdf_paths_are_stored_relative_and_old_absolute_rows_migrate(tmp_path: Path):
    home = tmp_path / "lib"
    (home / "papers").mkdir(parents=True)
    store = Store(home / "library.sqlite")
    store.add_paper(Paper(id="a", title="A", pdf_path=str(home / "papers" / "a.pdf")), ["p"], [])
    store.add_paper(Paper(id="b", title="B", pdf_path="/elsewhere/b.pdf"), ["p"], [])
    store.close()
    conn = sqlite3.connect(home / "library.sqlite")
    assert dict(conn.execute("SELECT id, pdf_path FROM papers")) == {"a": "papers/a.pdf", "b": "/elsewhere/b.pdf"}
    # A library made before: absolute rows, one inside the home, one of a copy's original, one elsewhere.
    (home / "papers" / "c.pdf").write_bytes(b"%PDF")
    conn.execute("UPDATE papers SET pdf_path = ? WHERE id = 'a'", (str(home / "papers" / "a.pdf"),))
    conn.execute("INSERT INTO papers (id, title, pdf_path, added) VALUES ('c', 'C', '/old/home/papers/c.pdf', 0)")
    conn.execute("UPDATE schema_versions SET version = 1 WHERE owner = 'catalogue'")
    conn.commit()
    conn.close()
    store = Store(home / "library.sqlite")
    rows = dict(store.query("SELECT id, pdf_path FROM papers"))
    assert rows == {"a": "papers/a.pdf", "b": "/elsewhere/b.pdf", "c": "papers/c.pdf"}
    assert store.get_paper("a").pdf_path == str(home / "papers" / "a.pdf")  # the app sees full paths
    assert store.schema_versions()["catalogue"] == 3
    store.close()
