"""`paperdesk doctor` and `paperdesk reindex` on real libraries: healthy, broken indexes, corrupt SQLite.

Real parts throughout: the CiteSee PDF ingested with the real embedder, tantivy,
SQLite, the real GGUF in the generation probe, llama_cpp.server and the fake
arXiv on loopback.
"""

from __future__ import annotations

import json
import shutil
import sqlite3
from pathlib import Path

import numpy as np
import pytest

from paperdesk.cli import main
from paperdesk.core.config import load_settings
from paperdesk.core.library.health import check_index, check_remote, check_sqlite

pytestmark = pytest.mark.slow  # the real embedder builds the library; doctor probes the real GGUF

ALL_CHECKS = ["python", "packages", "llama.cpp build", "generation", "embedding", "data dir", "models dir", "sqlite",
              "indexes", "pdfs", "remote endpoint", "arxiv"]


@pytest.fixture(scope="module")
def built_home(tmp_path_factory, embedder, citesee_pdf) -> Path:
    """A small library (one paper, 60 chunks), built once; tests work on copies."""
    from paperdesk.core.library.library import Library

    home = tmp_path_factory.mktemp("doctor") / "home"
    settings = load_settings(environ={"PAPERDESK_HOME": str(home)}, path=home / "absent.toml")
    library = Library(settings, embedder=embedder)
    library.add_pdf(citesee_pdf)
    library.close()
    return home


@pytest.fixture
def home(built_home, tmp_home) -> Path:
    shutil.rmtree(tmp_home)
    shutil.copytree(built_home, tmp_home)
    return tmp_home


def _doctor(capsys) -> tuple[int, dict]:
    capsys.readouterr()
    code = main(["doctor", "--json"])
    return code, json.loads(capsys.readouterr().out)


def _by_name(report: dict) -> dict[str, dict]:
    return {c["name"]: c for c in report["checks"]}


def test_healthy_library_passes_every_check(home, arxiv, llama_server_url, monkeypatch, capsys):
    monkeypatch.setenv("PAPERDESK_ARXIV_API_URL", arxiv.api_url)
    monkeypatch.setenv("PAPERDESK_LLM_REMOTE_URL", llama_server_url)
    code, report = _doctor(capsys)
    checks = _by_name(report)
    assert [c["name"] for c in report["checks"]] == ALL_CHECKS
    assert {name: c["status"] for name, c in checks.items()} == {name: "ok" for name in ALL_CHECKS}
    assert code == 0 and report["ok"] is True and report["problems"] == []
    assert checks["generation"]["details"]["tokens"] > 0 and checks["generation"]["details"]["tokens_per_s"] > 0
    assert "AMX" not in " ".join(checks["llama.cpp build"]["details"]["features"])
    assert checks["indexes"]["details"] == {"store_chunks": 60, "keyword_docs": 60, "vector_rows": 60, "problems": []}
    assert checks["embedding"]["details"]["dim"] == 384
    # this server is started with --logits_all false: it answers, and the doctor says its answers go unchecked
    assert "no log-probabilities" in checks["remote endpoint"]["summary"]
    assert "unchecked" in checks["remote endpoint"]["summary"]


def _break_indexes(home: Path) -> None:
    """Damage both indexes in ways that opening the library does not notice (counts stay equal)."""
    from paperdesk.core.search.keyword import KeywordDoc, KeywordIndex

    ids_path = home / "index" / "vectors.ids.npy"
    ids = np.load(ids_path)
    np.save(ids_path, ids + 100_000)  # same generation stamp and length, wrong chunks
    conn = sqlite3.connect(home / "library.sqlite")
    rows = conn.execute("SELECT id, paper_id, section, text FROM chunks ORDER BY id").fetchall()
    conn.close()
    docs = [KeywordDoc(cid, pid, "t", section, text) for cid, pid, section, text in rows[1:]]
    docs.append(KeywordDoc(999_999, rows[0][1], "t", "", "a chunk the store never had"))
    KeywordIndex(home / "index" / "keyword").replace_papers({rows[0][1]: docs})


def test_broken_indexes_are_a_problem_and_reindex_fixes_them(home, monkeypatch, capsys):
    monkeypatch.setenv("PAPERDESK_OFFLINE", "1")
    _break_indexes(home)
    code, report = _doctor(capsys)
    indexes = _by_name(report)["indexes"]
    assert code == 1 and report["problems"] == ["indexes"]
    assert indexes["status"] == "problem" and indexes["fix"] == "paperdesk reindex"
    problems = " | ".join(indexes["details"]["problems"])
    assert "keyword index lacks 1 chunk of the store and holds 1 chunk the store does not have" in problems
    assert "vector index lacks 60 chunks of the store and holds 60" in problems

    assert main(["reindex"]) == 0
    assert "reindexed 60 chunks of 1 paper" in capsys.readouterr().out
    code, report = _doctor(capsys)
    assert code == 0 and _by_name(report)["indexes"]["status"] == "ok"
    from paperdesk.core.library.library import Library

    library = Library(load_settings())
    try:
        hits = library.search("citation context", k=5, mode="vector")
        assert hits and all(h.chunk_id < 100_000 for h in hits)  # real chunks again
    finally:
        library.close()


def test_unreadable_keyword_files_are_found_and_reindex_recovers(home, capsys):
    (home / "index" / "keyword" / "meta.json").write_text("not json {")
    settings = load_settings()
    broken = check_index(settings)
    assert broken.status == "problem" and "keyword index cannot be read" in broken.summary
    assert main(["reindex", "--json"]) == 0
    assert json.loads(capsys.readouterr().out) == {"papers": 1, "chunks": 60}
    assert check_index(settings).status == "ok"


@pytest.mark.parametrize("damage", ["header", "index_definition"])
def test_corrupt_sqlite_is_a_problem_with_a_fix(home, damage, monkeypatch, capsys):
    db = home / "library.sqlite"
    if damage == "header":
        with open(db, "r+b") as fh:
            fh.write(b"this is not sqlite at all")
    else:  # the file opens, but an index no longer matches its table
        conn = sqlite3.connect(db, isolation_level=None)
        conn.execute("PRAGMA writable_schema=ON")
        conn.execute("UPDATE sqlite_master SET sql = 'CREATE INDEX chunks_paper ON chunks(ordinal, paper_id)' "
                     "WHERE name = 'chunks_paper'")
        conn.execute("PRAGMA writable_schema=OFF")
        conn.close()
    settings = load_settings()
    check = check_sqlite(settings)
    assert check.status == "problem" and "paperdesk doctor --rebuild" in check.fix and "re-add" in check.fix
    expected = "is not an SQLite database" if damage == "header" else "fails PRAGMA integrity_check: row 1 missing from index"
    assert expected in check.summary
    if damage == "index_definition":
        assert check_index(settings, sqlite_ok=False).status == "skipped"


def test_doctor_exits_1_on_a_corrupt_sqlite_file_and_says_why(home, monkeypatch, capsys):
    monkeypatch.setenv("PAPERDESK_OFFLINE", "1")
    (home / "library.sqlite").write_bytes(b"\x00garbage" * 512)
    capsys.readouterr()
    assert main(["doctor"]) == 1
    out = capsys.readouterr().out
    assert "PROBLEM  sqlite" in out and "skipped  indexes" in out and "skipped  pdfs" in out
    assert out.strip().endswith("1 problem: sqlite; each fix is under it")


def test_remote_endpoint_that_does_not_answer_is_a_problem(tmp_home, monkeypatch):
    from conftest import _free_port

    monkeypatch.setenv("PAPERDESK_LLM_REMOTE_URL", f"http://127.0.0.1:{_free_port()}")
    check = check_remote(load_settings())
    assert check.status == "problem" and "does not answer" in check.summary and "llm.remote_url" in check.fix
