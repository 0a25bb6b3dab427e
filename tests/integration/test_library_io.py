"""Papers in and out through the Desk (the shell and TUI run these lines): export, import, remove, tags, list filters.

Real SQLite, tantivy, embeddings and the loopback arXiv; no model is loaded (none of these commands generates).
"""

import shutil
from pathlib import Path

import pytest

from conftest import PAPERS
from paperdesk.core.library import bibtex
from paperdesk.core.desk.desk import Desk
from settings_for import NO_MODEL, settings_for

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def two_papers(tmp_path_factory, arxiv_server, embedder):
    """A data dir holding CiteSee (15 pages) and the 4-page position paper as local PDFs, made once."""
    home = tmp_path_factory.mktemp("library-io") / "library"
    desk = Desk(settings_for(home, arxiv_server.api_url, **NO_MODEL), embedder=embedder)
    ids = [desk.library.add_pdf(PAPERS / name).paper.id for name in ("2302.07302v1.pdf", "2304.02623v1.pdf")]
    desk.close()
    return home, ids


@pytest.fixture
def make_desk(tmp_path, arxiv, embedder, monkeypatch, two_papers):
    """make(home_name, with_papers=False, **env) -> a Desk on a new data dir (a copy of the two-paper one)."""
    monkeypatch.chdir(tmp_path)  # default export files land here
    desks = []

    def make(home_name="home", with_papers=False, **env):
        home = tmp_path / home_name
        if with_papers:
            shutil.copytree(two_papers[0], home)
        home.mkdir(exist_ok=True)
        desk = Desk(settings_for(home, arxiv.api_url, **{**NO_MODEL, **env}), embedder=embedder)
        desks.append(desk)
        return desk

    yield make
    for desk in desks:
        desk.close()


def _papers(desk, two_papers):
    """(CiteSee, the position paper) as stored in this desk's library."""
    return [desk.store.get_paper(pid) for pid in two_papers[1]]


def test_export_bibtex_pins_keys_and_import_brings_everything_back(make_desk, tmp_path, two_papers):
    desk = make_desk(with_papers=True)
    citesee, legal = _papers(desk, two_papers)
    assert desk.run("list").ok
    assert desk.run("tag 2 to-read hci").message.startswith(f"tagged {legal.id} to-read, hci")
    out = desk.run("export bibtex --all")
    assert out.ok and "exported 2 BibTeX entries (the whole library)" in out.message
    first = (tmp_path / "paperdesk.bib").read_text()
    again = desk.run("export bibtex 2 1 --out again.bib")
    assert again.ok and "exported 2 BibTeX entries" in again.message
    assert not (tmp_path / "paperdesk-2.bib").exists()  # --out names the file
    entries = {e.key: e for e in bibtex.parse(first)}
    assert {e.key for e in bibtex.parse((tmp_path / "again.bib").read_text())} == entries.keys()
    assert desk.run("export bibtex --all").message.endswith("paperdesk-2.bib")  # never overwrites a default name
    by_id = {e.fields["note"].split()[-1]: e for e in entries.values()}
    assert by_id[legal.id].fields["keywords"] == "hci, to-read"
    assert bibtex.pdf_paths_of(by_id[legal.id]) == [legal.pdf_path]

    assert desk.run(f"export bibtex {legal.id} --out one.bib").ok
    fresh = make_desk("other")
    imported = fresh.run(f"import bibtex {tmp_path / 'one.bib'}")
    assert imported.ok and "1 added, 0 already in the library, 0 skipped" in imported.message
    assert [p.id for p in fresh.store.list_papers()] == [legal.id]
    assert fresh.store.paper_meta.tags_of(legal.id) == ["hci", "to-read"]
    assert fresh.store.paper_meta.field(legal.id, "citekey") == desk.store.paper_meta.field(legal.id, "citekey")
    again = fresh.run(f"import bibtex {tmp_path / 'one.bib'}")
    assert "0 added, 1 already in the library" in again.message


def test_import_lists_what_it_skipped_and_why(make_desk, tmp_path, two_papers):
    desk = make_desk(with_papers=True)
    citesee, legal = _papers(desk, two_papers)
    shutil.copy(PAPERS / "2302.07302v1.pdf", tmp_path / "local.pdf")
    bib = tmp_path / "mixed.bib"
    bib.write_text("""
@misc{fromarxiv, title = {Beyond}, eprint = {2304.02623}, archivePrefix = {arXiv}, doi = {10.1/xyz},
      keywords = {writing, to read}}
@misc{frompdf, title = {Local}, file = {Full Text:local.pdf:application/pdf}}
@book{noids, title = {A book without ids}}
@misc{gone, title = {Missing}, file = {missing.pdf}}
""")
    out = desk.run(f"import bibtex {bib}")
    assert out.ok and "0 added, 2 already in the library, 2 skipped" in out.message, out.view.lines
    lines = out.view.lines
    # the local copy already added carries arXiv's stamp of 2304.02623: it is that paper, known by its arXiv id
    # (so `get`, find's mark and the BibTeX eprint see it) without asking arXiv, never a second copy
    assert f"already in the library: fromarxiv ({legal.id})" in lines
    assert f"already in the library: frompdf ({citesee.id})" in lines  # the same bytes are the same paper
    assert any(line.startswith("skipped noids: no arXiv id and no local PDF file") for line in lines)
    assert any(line.startswith("skipped gone: its PDF missing.pdf does not exist") for line in lines)
    assert desk.store.count_papers() == 2
    adopted = desk.library.get("2304.02623")
    assert adopted.id == legal.id and adopted.arxiv_id == "2304.02623"
    meta = desk.store.paper_meta
    assert meta.field(legal.id, "doi") == "10.1/xyz"
    assert meta.tags_of(legal.id) == ["to-read", "writing"]
    assert meta.field(legal.id, "citekey") == "fromarxiv"


def test_import_offline_says_arxiv_cannot_be_reached(make_desk, tmp_path):
    desk = make_desk(PAPERDESK_ARXIV_API_URL="http://127.0.0.1:9/api/query", PAPERDESK_ARXIV_NUM_RETRIES="0")
    bib = tmp_path / "one.bib"
    bib.write_text("@misc{a, eprint = {2302.07302}, archivePrefix = {arXiv}}\n"
                   "@misc{b, journal = {arXiv preprint arXiv:2304.02623}}\n")
    out = desk.run(f"import bibtex {bib}")
    assert out.ok and "0 added, 0 already in the library, 2 skipped" in out.message
    assert out.view.lines[0].startswith("skipped a: arXiv is unreachable")
    assert out.view.lines[1].startswith("skipped b: arXiv 2304.02623 cannot be fetched: arXiv is unreachable")
    assert desk.store.count_papers() == 0
    forced = make_desk("offline", PAPERDESK_OFFLINE="1")
    out = forced.run(f"import bibtex {bib}")
    assert "skipped a: arXiv 2302.07302 cannot be fetched" in out.view.lines[0]


def test_malformed_bibtex_is_a_clear_error_and_adds_nothing(make_desk, tmp_path):
    desk = make_desk()
    bad = tmp_path / "bad.bib"
    bad.write_text("@misc{ok, file = {x.pdf}}\n@misc{broken,\n title = {never closed\n")
    out = desk.run(f"import bibtex {bad}")
    assert out.status == "error"
    assert "bad.bib is not valid BibTeX (line 3: a { is never closed); nothing was added" in out.message
    assert desk.run("import bibtex nowhere.bib").message.startswith("import: no such file")
    assert desk.run("import ris x.ris").message.startswith("import needs bibtex <file>")
    assert desk.store.count_papers() == 0


def test_remove_tags_and_list_filters(make_desk, two_papers):
    desk = make_desk(with_papers=True)
    citesee, legal = _papers(desk, two_papers)
    assert desk.run("list").ok
    assert desk.run(f"tag {legal.id} to-read").ok
    assert desk.run("tag 1 to-read later").ok
    assert desk.run("tag 1 Not/a tag!").status == "error"
    assert desk.store.paper_meta.tags_of(citesee.id) == ["later", "to-read"]  # nothing half-written
    out = desk.run("list --tag to-read --sort title --reverse")
    assert out.ok and [i.id for i in desk.session.results] == [citesee.id, legal.id]  # CiteSee > Beyond, reversed
    assert desk.session.results_query == "tag to-read · by title reversed"
    assert desk.run("untag 1 later to-read").ok  # result 1 of the filtered list: CiteSee
    assert desk.store.paper_meta.tags_of(citesee.id) == []
    assert desk.run("list --tag later").message.startswith("no paper of the 2 in the library matches tag later")
    assert desk.state == "initial"
    assert desk.run("list citesee").ok and [i.id for i in desk.session.results] == [citesee.id]
    assert desk.run("list --author shen").ok and [i.id for i in desk.session.results] == [legal.id]
    assert desk.run("list").ok
    out = desk.run("remove 1")
    assert out.ok and f"removed {citesee.id}" in out.message and "renumbered (1 left)" in out.message
    assert [i.id for i in desk.session.results] == [legal.id]
    assert desk.store.get_paper(citesee.id) is None and not Path(citesee.pdf_path).exists()
    assert not any(h.paper_id == citesee.id for h in desk.library.search("citations reader has seen", k=20))
    assert desk.run(f"remove {citesee.id}").status == "error"


def test_export_markdown_of_a_report_and_a_summary(make_desk, tmp_path, two_papers):
    desk = make_desk(with_papers=True)
    paper, _ = _papers(desk, two_papers)
    draft = desk.drafts.new_draft("report", "how do readers track citations")
    desk.drafts.add_draft_revision(draft, "Readers lose track of cited papers [1].", [
        {"n": 1, "paper_id": paper.id, "title": paper.title, "page": 2, "chunk_id": 1, "quote": "q"}])
    desk.drafts.save_report(draft, "Tracking citations")
    out = desk.run("export markdown report --out r.md")
    assert out.ok and "the saved report 'Tracking citations'" in out.message
    text = (tmp_path / "r.md").read_text()
    assert text.startswith("# Tracking citations\n\nReaders lose track of cited papers [1].")
    year = f" ({paper.published[:4]})" if (paper.published or "")[:4].isdigit() else ""  # a local PDF's year, when found
    assert year == " (2023)"  # the CiteSee PDF's arXiv stamp
    # the stamp also makes the local PDF that arXiv paper: the reference cites it by its arXiv id
    assert "## References" in text and f"[1] Chang et al.{year}. {paper.title}. arXiv:2302.07302, p. 2." in text
    assert desk.run(f"export markdown summary {paper.id}").message == \
        f"export: {paper.id} has no summary yet; summarize it first"
    desk.store.drafts.add_summary_revision(paper.id, "CiteSee marks papers a reader has seen [p. 1].")
    out = desk.run(f"export markdown summary {paper.id}")
    assert out.ok and (tmp_path / f"summary-{paper.id}.md").read_text().startswith(f"# Summary: {paper.title}")
    assert desk.run("export pdf").message.startswith("export: say what to export, bibtex or markdown")


def test_cli_tag_list_export_import(tmp_home, tmp_path, capsys, embedder, monkeypatch):
    from paperdesk.cli import main

    monkeypatch.chdir(tmp_path)
    assert main(["add", str(PAPERS / "2304.02623v1.pdf")]) == 0
    pid = next(line.split()[1] for line in capsys.readouterr().out.splitlines() if line.startswith("added"))
    assert main(["tag", pid, "to-read", "HCI"]) == 0
    assert capsys.readouterr().out.strip() == f"{pid}: hci, to-read"
    assert main(["list", "--tag", "hci", "--sort", "title"]) == 0 and pid in capsys.readouterr().out
    assert main(["list", "--year", "1999"]) == 0
    assert capsys.readouterr().out.startswith("no paper matches year 1999")
    assert main(["export", "bibtex", "--all"]) == 0
    assert capsys.readouterr().out.strip() == f"exported 1 BibTeX entry to {tmp_path / 'paperdesk.bib'}"
    [entry] = bibtex.parse((tmp_path / "paperdesk.bib").read_text())
    assert entry.fields["keywords"] == "hci, to-read" and entry.fields["file"].endswith(f"{pid}.pdf")
    assert main(["import", "bibtex", "paperdesk.bib"]) == 0
    assert capsys.readouterr().out.strip() == f"already in the library: {entry.key} ({pid})"
    assert main(["tag", pid, "no way!"]) == 1
    assert "is not a tag" in capsys.readouterr().err


def test_the_shell_runs_tag_list_export_and_remove(make_desk, tmp_path, two_papers):
    import io

    from paperdesk.shell import run_shell

    desk = make_desk(with_papers=True)
    citesee, legal = _papers(desk, two_papers)
    script = "list\ntag 1 to-read\nlist --tag to-read\nexport bibtex --out s.bib\nremove 1\nlist\n"
    out, err = io.StringIO(), io.StringIO()
    rc = run_shell(desk.settings, stdin=io.StringIO(script), out=out, err=err, desk=desk)
    text = out.getvalue()
    assert rc == 0, err.getvalue()
    assert f"tagged {citesee.id} to-read" in text and "1 paper matches tag to-read" in text
    assert f"exported 1 BibTeX entry (the papers of the results) to {tmp_path / 's.bib'}" in text
    assert f"removed {citesee.id}" in text  # a script is not asked: it says what it means
    assert "1 paper in the library" in text and desk.store.get_paper(citesee.id) is None
