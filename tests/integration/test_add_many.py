"""`paperdesk add` with several sources and folders: one run, each paper once, failures listed with their
reason while the rest goes on, and a stopped batch resumed by running it again. Real PDFs, SQLite,
tantivy and the embedder; offline, so no arXiv lookups."""

from __future__ import annotations

import json
import shutil

from conftest import PAPERS
from paperdesk.cli import main
from paperdesk.core.cancel import CancelToken
from paperdesk.core.config import load_settings
from paperdesk.core.commands.batch_add import add_many, expand
from paperdesk.core.library.library import Library


def _folder(tmp_path):
    folder = tmp_path / "papers"
    (folder / "nested").mkdir(parents=True)
    shutil.copyfile(PAPERS / "2304.02623v1.pdf", folder / "beyond.pdf")
    shutil.copyfile(PAPERS / "papermage.pdf", folder / "nested" / "PaperMage.PDF")
    shutil.copyfile(PAPERS / "2304.02623v1.pdf", folder / "nested" / "copy of beyond.pdf")  # same bytes
    (folder / "broken.pdf").write_bytes(b"%PDF-1.5\n" + b"\x00" * 300)  # a PDF in name only
    (folder / "notes.txt").write_text("not a paper")
    return folder


def test_a_folder_and_files_in_one_run_each_paper_once(tmp_home, tmp_path, embedder, capsys, monkeypatch):
    monkeypatch.setenv("PAPERDESK_OFFLINE", "1")
    folder = _folder(tmp_path)
    code = main(["add", str(folder), str(tmp_path / "absent.pdf"), "--json"])
    report = json.loads(capsys.readouterr().out)
    assert code == 1  # one PDF failed
    assert sorted(a["source"].rsplit("/", 1)[-1] for a in report["added"]) == ["PaperMage.PDF", "beyond.pdf"]
    assert [p["source"].rsplit("/", 1)[-1] for p in report["present"]] == ["copy of beyond.pdf"]
    assert [f["source"].rsplit("/", 1)[-1] for f in report["failed"]] == ["broken.pdf"]
    assert report["failed"][0]["why"]  # with its reason
    assert [s["source"] for s in report["skipped"]] == [str(tmp_path / "absent.pdf")]
    main(["add", str(folder)])  # again: everything is already there
    out = capsys.readouterr().out
    assert "0 papers added, 3 already in the library" in out and "failed" in out


def test_a_stopped_batch_keeps_what_it_added_and_the_same_run_goes_on(tmp_home, tmp_path, embedder):
    folder = _folder(tmp_path)
    (folder / "broken.pdf").unlink()
    sources, _ = expand([str(folder)])
    settings = load_settings()
    library = Library(settings, embedder=embedder)
    try:
        cancel = CancelToken()

        def stop_after_the_first(done, total, name, stage, eta):
            if done == 1:
                cancel.cancel()

        first = add_many(library, sources, None, on_progress=stop_after_the_first, cancel=cancel)
        assert first.stopped and len(first.added) == 1 and library.store.count_papers() == 1
        assert "run the same add again" in first.summary()
        again = add_many(library, sources, None)
        assert len(again.present) == 2 and len(again.added) == 1 and not again.stopped
        assert library.store.count_papers() == 2 and library.integrity_problems() == []
    finally:
        library.close()
