"""The library never deletes a user's PDFs, a damaged catalogue is rebuilt from them, and it is private.

Real SQLite, tantivy, the real embedder and the fixture PDFs throughout; the
CLI runs in this process through `main`.
"""

from __future__ import annotations

import json
import os
import shutil
import sqlite3
import stat
from pathlib import Path

import pytest

from conftest import PAPERS
from paperdesk.cli import main
from paperdesk.core.config import load_settings
from paperdesk.core.errors import StoreError
from paperdesk.core.library.library import Library

pytestmark = pytest.mark.slow

SOURCES = ("2304.02623v1.pdf", "papermage.pdf")


def _ingest(settings, embedder) -> dict[str, bytes]:
    """A library of the two fixture papers, added one by one; paper id -> PDF bytes."""
    lib = Library(settings, embedder=embedder)
    try:
        return {lib.add_pdf(PAPERS / name).paper.id: (PAPERS / name).read_bytes() for name in SOURCES}
    finally:
        lib.close()


@pytest.fixture(scope="module")
def template(tmp_path_factory, embedder) -> tuple[Path, dict[str, bytes]]:
    """The two-paper library, ingested once for the module (a library folder can be copied: its paths are
    relative to it)."""
    home = tmp_path_factory.mktemp("safety-template") / "home"
    return home, _ingest(load_settings(environ={"PAPERDESK_HOME": str(home)}, path=home / "absent.toml"), embedder)


@pytest.fixture
def build(template):
    """build(settings) -> a copy of the two-paper library in settings.home; paper id -> PDF bytes."""
    def copy(settings) -> dict[str, bytes]:
        shutil.copytree(template[0], settings.home, symlinks=True, dirs_exist_ok=True)
        return dict(template[1])

    return copy


def _pdfs_everywhere(home: Path) -> set[bytes]:
    return {p.read_bytes() for p in home.rglob("*.pdf")}


def _listed(settings, embedder) -> dict[str, str]:
    lib = Library(settings, embedder=embedder)
    try:
        assert lib.integrity_problems() == []
        return {p.id: Path(p.pdf_path).read_bytes() for p in lib.store.list_papers()}  # type: ignore[arg-type]
    finally:
        lib.close()


def test_a_catalogue_moved_aside_leaves_every_pdf_in_lost_and_found(settings, build, embedder):
    papers = build(settings)
    home = settings.home
    os.replace(home / "library.sqlite", home / "library.sqlite.broken")  # what doctor used to advise
    lib = Library(settings, embedder=embedder)
    try:
        assert lib.store.count_papers() == 0
        assert len(lib.notices) == 1 and "lost+found" in lib.notices[0] and "doctor --rebuild" in lib.notices[0]
    finally:
        lib.close()
    kept = {p.read_bytes() for p in (home / "lost+found").glob("*.pdf")}
    assert kept == set(papers.values())  # every PDF, byte for byte; none deleted


def test_the_cli_says_where_the_pdfs_went(settings, build, embedder, capsys):
    build(settings)
    os.replace(settings.home / "library.sqlite", settings.home / "library.sqlite.broken")
    capsys.readouterr()
    assert main(["list"]) == 0
    err = capsys.readouterr().err
    assert err.startswith("warning: moved 2 PDFs") and "lost+found" in err and "doctor --rebuild" in err


@pytest.mark.parametrize("damage", ["truncated", "zero-byte"])
def test_doctor_finds_a_lost_catalogue_and_rebuild_brings_every_paper_back(settings, build, embedder, capsys, damage):
    from paperdesk.core.library.health import check_sqlite

    papers = build(settings)
    db = settings.home / "library.sqlite"
    assert check_sqlite(settings).status == "ok"
    if damage == "truncated":
        os.truncate(db, 100_000)
    else:
        db.write_bytes(b"")
    check = check_sqlite(settings)
    assert check.status == "problem" and ("truncated" if damage == "truncated" else "zero bytes") in check.summary
    assert check.fix.startswith("paperdesk doctor --rebuild")
    with pytest.raises(StoreError, match="doctor --rebuild"):
        Library(settings, embedder=embedder)  # refused, not opened as a new empty library
    assert _pdfs_everywhere(settings.home) == set(papers.values())

    capsys.readouterr()
    assert main(["--offline", "doctor", "--rebuild", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert sorted(report["added"]) == sorted(papers) and report["failed"] == []
    assert Path(report["set_aside"]).stat().st_size == (100_000 if damage == "truncated" else 0)  # kept, not deleted
    assert _listed(settings, embedder) == papers
    assert not any((settings.home / "lost+found").glob("*.pdf"))
    assert check_sqlite(settings).status == "ok"


def test_rebuild_keeps_the_metadata_still_readable(settings, build, embedder, capsys):
    papers = build(settings)
    first = sorted(papers)[0]
    db = settings.home / "library.sqlite"
    conn = sqlite3.connect(db, isolation_level=None)
    conn.execute("UPDATE papers SET title = 'My own title', added = 1000.0 WHERE id = ?", (first,))
    conn.execute("PRAGMA writable_schema=ON")  # damage an index: integrity_check fails, the rows still read
    conn.execute("UPDATE sqlite_master SET sql = 'CREATE INDEX chunks_paper ON chunks(ordinal, paper_id)' "
                 "WHERE name = 'chunks_paper'")
    conn.execute("PRAGMA writable_schema=OFF")
    conn.close()
    assert main(["--offline", "doctor", "--rebuild", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["metadata"] == 2
    lib = Library(settings, embedder=embedder)
    try:
        paper = lib.get(first)
        assert (paper.title, paper.added) == ("My own title", 1000.0)
        assert [h.paper_id for h in lib.search("My own title", k=1, mode="keyword")] == [first]
    finally:
        lib.close()


def test_rebuild_on_a_sound_catalogue_only_adds_back_unlisted_pdfs(settings, build, embedder, capsys):
    papers = build(settings)
    lib = Library(settings, embedder=embedder)
    gone = sorted(papers)[0]
    pdf = Path(lib.get(gone).pdf_path)  # type: ignore[arg-type]
    saved = pdf.read_bytes()
    lib.remove(gone)
    lib.close()
    (settings.home / "papers" / "mine.pdf").write_bytes(saved)  # a user's own copy dropped in papers/
    assert main(["--offline", "doctor", "--rebuild", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["set_aside"] is None and report["added"] == [gone]
    assert _listed(settings, embedder) == papers


def test_doctor_reports_a_paper_whose_pdf_is_missing_and_rebuild_puts_it_back(settings, build, embedder, capsys):
    from paperdesk.core.library.health import check_pdfs

    papers = build(settings)
    assert check_pdfs(settings).status == "ok"
    victim = sorted(papers)[1]
    (settings.home / "lost+found").mkdir()
    os.replace(settings.home / "papers" / f"{victim}.pdf", settings.home / "lost+found" / "found.pdf")
    check = check_pdfs(settings)
    assert check.status == "problem" and victim in check.summary and check.details["missing"] == [victim]
    assert "1 PDF no paper lists (1 in lost+found/)" in check.summary
    capsys.readouterr()
    assert main(["--offline", "doctor", "--rebuild", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["restored"] == [victim] and report["added"] == []
    assert check_pdfs(settings).status == "ok" and _listed(settings, embedder) == papers


def _make_pre_relative(home: Path) -> None:
    """Rows as paperdesk stored them before paths were relative: absolute, catalogue schema 1."""
    conn = sqlite3.connect(home / "library.sqlite", isolation_level=None)
    conn.execute("UPDATE papers SET pdf_path = ? || '/' || pdf_path", (str(home),))
    conn.execute("UPDATE schema_versions SET version = 1 WHERE owner = 'catalogue'")
    conn.close()


@pytest.mark.parametrize("made", ["now", "before relative paths"])
def test_removing_in_a_copied_library_keeps_the_originals_pdf(settings, build, embedder, tmp_path, monkeypatch, made):
    papers = build(settings)
    original = settings.home
    if made != "now":
        _make_pre_relative(original)
    copy = tmp_path / "copy"
    shutil.copytree(original, copy, symlinks=True)  # cp -a
    monkeypatch.setenv("PAPERDESK_HOME", str(copy))
    for pid in papers:
        assert main(["remove", pid]) == 0
    assert {p.read_bytes() for p in (original / "papers").glob("*.pdf")} == set(papers.values())
    assert not list((copy / "papers").glob("*.pdf"))
    monkeypatch.setenv("PAPERDESK_HOME", str(original))
    assert _listed(load_settings(), embedder) == papers


def test_remove_never_deletes_a_file_outside_the_library(settings, build, embedder, tmp_path):
    papers = build(settings)
    mine = tmp_path / "elsewhere" / "mine.pdf"
    mine.parent.mkdir()
    mine.write_bytes(b"%PDF-1.4 the user's own file")
    pid = sorted(papers)[0]
    conn = sqlite3.connect(settings.home / "library.sqlite", isolation_level=None)
    conn.execute("UPDATE papers SET pdf_path = ? WHERE id = ?", (str(mine), pid))
    conn.close()
    lib = Library(settings, embedder=embedder)
    lib.remove(pid)
    lib.close()
    assert mine.read_bytes() == b"%PDF-1.4 the user's own file"


def _mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def test_library_files_are_private_to_their_owner(settings, embedder):
    old = os.umask(0o022)
    try:
        shutil.rmtree(settings.home)
        papers = _ingest(settings, embedder)
        home = settings.home
        assert _mode(home) == 0o700 and _mode(home / "papers") == 0o700 and _mode(home / "index") == 0o700
        assert _mode(home / "library.sqlite") == 0o600
        assert all(_mode(home / "papers" / f"{pid}.pdf") == 0o600 for pid in papers)
        # A library made before: tightened when it opens.
        os.chmod(home, 0o755), os.chmod(home / "library.sqlite", 0o644), os.chmod(home / "papers", 0o755)
        Library(settings, embedder=embedder).close()
        assert (_mode(home), _mode(home / "library.sqlite"), _mode(home / "papers")) == (0o700, 0o600, 0o700)
    finally:
        os.umask(old)


@pytest.mark.parametrize("verb", [["ask", "what is this"], ["discuss", "x"], ["research", "what is this"]])
def test_a_full_disk_at_open_says_free_space_not_move_the_file_aside(tmp_home, monkeypatch, capsys, verb):
    import paperdesk.core.db.owned_db as owned_db

    def full(_path):
        raise sqlite3.OperationalError("database or disk is full")

    monkeypatch.setattr(owned_db, "connect", full)
    capsys.readouterr()
    assert main(verb) == 1
    err = capsys.readouterr().err
    assert "the disk is full" in err and "free some space" in err
    assert "move the file aside" not in err and "new library" not in err


def test_a_damaged_catalogue_names_the_rebuild(tmp_home, capsys):
    (tmp_home / "library.sqlite").write_bytes(b"\x00garbage" * 512)
    assert main(["list"]) == 1
    err = capsys.readouterr().err
    assert "paperdesk doctor --rebuild" in err and "move the file aside" not in err


@pytest.mark.parametrize("online", [True, False])
def test_rebuild_names_arxiv_pdfs_by_their_id_and_online_gets_arxivs_record(settings, embedder, arxiv, monkeypatch,
                                                                             capsys, online):
    from paperdesk.core.sources.arxiv import ArxivClient

    lib = Library(settings, embedder=embedder)
    before = lib.add_arxiv("2302.07302v1", ArxivClient(arxiv.api_url, delay_seconds=0, num_retries=1)).paper
    lib.close()
    (settings.home / "library.sqlite").write_bytes(b"")
    monkeypatch.setenv("PAPERDESK_ARXIV_API_URL", arxiv.api_url)
    monkeypatch.setenv("PAPERDESK_ARXIV_DELAY_SECONDS", "0")
    capsys.readouterr()
    assert main(["doctor", "--rebuild", "--json"] if online else ["--offline", "doctor", "--rebuild", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["added"] == [before.id]
    lib = Library(settings, embedder=embedder)
    try:
        paper = lib.get("2302.07302")
        assert (paper.id, paper.arxiv_id, paper.version) == (before.id, "2302.07302", 1)
        assert (paper.abstract == before.abstract) if online else paper.abstract == ""
        assert Path(paper.pdf_path).name == "2302.07302v1.pdf"  # type: ignore[arg-type]
    finally:
        lib.close()
