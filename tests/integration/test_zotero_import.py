"""`import zotero DIR` on a Zotero data directory written by Zotero itself (tests/fixtures/zotero, see its
SOURCE.md): each item's PDF with Zotero's metadata, collections as tags, notes as notes, items without a
PDF listed as skipped with why, each paper once, and a re-run adds nothing. Real SQLite, PDFs, tantivy and
the embedder; the copy's rows added below go through Zotero's own schema and triggers."""

from __future__ import annotations

import json
import shutil
import sqlite3
from pathlib import Path

import pytest

from conftest import PAPERS
from paperdesk.cli import main

FIXTURE = Path(__file__).resolve().parent.parent / "fixtures" / "zotero"


@pytest.fixture
def zotero_dir(tmp_path):
    """A copy of the fixture library: two items get real papers as their PDFs; one item gets a collection
    and a note, as Zotero would store them."""
    folder = tmp_path / "Zotero"
    shutil.copytree(FIXTURE, folder)
    for key, paper in (("J8FIHBUY", "papermage.pdf"), ("PIMHYJGK", "2304.02623v1.pdf")):
        target = next((folder / "storage" / key).glob("*.pdf"))
        shutil.copyfile(PAPERS / paper, target)
    conn = sqlite3.connect(folder / "zotero.sqlite")
    with conn:
        conn.execute("INSERT INTO collections (collectionID, collectionName, libraryID, key) "
                     "VALUES (1, 'Reading Group', 1, 'COLL0001')")
        conn.execute("INSERT INTO collectionItems (collectionID, itemID) VALUES (1, 9)")
        conn.execute("INSERT INTO items (itemID, itemTypeID, libraryID, key) VALUES (16, 27, 1, 'NOTE0001')")
        conn.execute("INSERT INTO itemNotes (itemID, parentItemID, note, title) VALUES (16, 9, ?, 'Check')",
                     ("<div><p>Check the <b>proof</b> of Lemma&nbsp;2.</p><ul><li>compare with Section 4</li>"
                      "</ul></div>",))
    conn.close()
    return folder


def test_a_zotero_library_comes_in_with_its_metadata_tags_and_notes(tmp_home, zotero_dir, embedder, capsys):
    assert main(["import", "zotero", str(zotero_dir), "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    added = {title: pid for title, pid in report["added"]}
    assert len(added) == 3  # three distinct PDFs
    assert [title for title, _ in report["present"]] == ["Review of summation-by-parts schemes for "
                                                        "initial–boundary-value problems"]  # the same PDF again
    skipped = dict(report["skipped"])
    assert skipped == {"Fully Conservative Higher Order Finite Difference Schemes for Incompressible Flow":
                       "no PDF attachment"}

    from paperdesk.core.config import load_settings
    from paperdesk.core.db.desk_store import DeskStore
    from paperdesk.core.library.library import Library

    library = Library(load_settings(), embedder=embedder)
    try:
        euler = library.store.get_paper(added["The Euler equations as a differential inclusion"])
        # Zotero's record, not what parsing the PDF (another paper's text here) guessed
        assert euler.title == "The Euler equations as a differential inclusion"
        assert euler.authors == ["Camillo De Lellis", "László Székelyhidi"]
        assert euler.published == "2009-11-01" and euler.arxiv_id == "math/0702079"
        assert euler.version is None  # the version on the PDF's arXiv stamp is another paper's
        meta = library.store.paper_meta
        assert meta.field(euler.id, "doi") == "10.4007/annals.2009.170.1417"
        assert meta.tags_of(euler.id) == ["reading-group"]
        assert DeskStore(library.store).notes(euler.id) == "Check the proof of Lemma 2.\n- compare with Section 4"
        grubb = library.store.get_paper(added["Fractional Laplacians on domains, a development of Hörmander's "
                                               "theory of μ-transmission pseudodifferential operators"])
        assert grubb.published == "2015" and grubb.authors == ["Gerd Grubb"]
    finally:
        library.close()

    assert main(["import", "zotero", str(zotero_dir), "--json"]) == 0  # again: nothing new
    again = json.loads(capsys.readouterr().out)
    assert again["added"] == [] and len(again["present"]) == 4


def test_a_folder_without_zotero_sqlite_is_one_clear_error(tmp_home, tmp_path, capsys):
    assert main(["import", "zotero", str(tmp_path)]) != 0
    assert "no zotero.sqlite in" in capsys.readouterr().err


def test_the_workbench_imports_a_zotero_library_too(make_desk, zotero_dir):
    desk = make_desk()
    outcome = desk.run(f"import zotero {zotero_dir}")
    assert outcome.ok and outcome.message.startswith("Zotero: 3 papers added, 1 already in the library, 1 skipped")
    assert any(line.startswith("skipped 'Fully Conservative") for line in outcome.view.lines)
    euler = next(p for p in desk.store.list_papers() if p.title.startswith("The Euler equations"))
    assert "Lemma 2" in desk.notes(euler.id)


def test_a_library_zotero_holds_locked_is_read_from_a_copy(tmp_path, monkeypatch):
    import tempfile

    from paperdesk.core.library.zotero import read_library

    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))  # where the copy is made, to see it go

    folder = tmp_path / "My Zotero #1"  # a path a file: URI must escape
    shutil.copytree(FIXTURE, folder)
    zotero = sqlite3.connect(folder / "zotero.sqlite")  # Zotero running: an exclusive lock on its database
    zotero.execute("PRAGMA locking_mode = EXCLUSIVE")
    zotero.execute("BEGIN EXCLUSIVE")
    try:
        items = read_library(folder)
    finally:
        zotero.rollback()
        zotero.close()
    assert [i.key for i in items] == ["GPPHXHHH", "X8H6TF8V", "I6RNZ53Q", "EWM83WCB", "IH8J2JJP"]
    assert not list(tmp_path.glob("paperdesk-zotero-*"))  # the copy is gone again
    seen = []
    real = shutil.copyfile
    monkeypatch.setattr(shutil, "copyfile", lambda a, b: seen.append(b) or real(a, b))
    zotero = sqlite3.connect(folder / "zotero.sqlite")
    zotero.execute("PRAGMA locking_mode = EXCLUSIVE")
    zotero.execute("BEGIN EXCLUSIVE")
    try:
        read_library(folder)
    finally:
        zotero.rollback()
        zotero.close()
    assert seen and str(seen[0]).startswith(str(tmp_path))  # it was read from a copy
