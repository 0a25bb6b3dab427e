"""Papers added from local PDFs carry a year, and a file named like an arXiv id is that paper in every face."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from conftest import PAPERS
from paperdesk.cli import main
from paperdesk.core.library import bibtex
from paperdesk.core.commands.list_options import parse_list_options

pytestmark = pytest.mark.slow


def test_a_local_pdf_gets_its_year_for_list_and_bibtex(library, tmp_path: Path) -> None:
    pdf = shutil.copy(PAPERS / "papermage.pdf", tmp_path / "toolkit.pdf")
    paper = library.add_pdf(Path(pdf)).paper
    assert paper.id.startswith("local-") and paper.published == "2023-11-09"
    _, by_year = parse_list_options("--year 2023 --sort year")
    assert [p.id for p in by_year.apply(library.store.list_papers(), {})] == [paper.id]
    entry = bibtex.entry_for(paper, bibtex.base_key(paper))
    assert "year = {2023}" in entry and bibtex.base_key(paper) == "lo2023papermage"


def test_cli_add_of_a_file_named_like_an_arxiv_id_gives_that_id(tmp_home, tmp_path: Path, capsys,
                                                                embedder) -> None:
    pdf = shutil.copy(PAPERS / "2304.02623v1.pdf", tmp_path / "2304.02623v1.pdf")
    assert main(["--offline", "add", str(pdf), "--json"]) == 0
    paper = json.loads(capsys.readouterr().out)["paper"]
    assert paper["id"] == "2304.02623v1" and paper["arxiv_id"] == "2304.02623"
    assert paper["title"] == "Beyond Summarization: Designing AI Support for Real-World Expository Writing Tasks"
    assert paper["published"] == "2023-04-05"  # offline: the date on the PDF's arXiv stamp
