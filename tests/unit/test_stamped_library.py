"""A local PDF with arXiv's stamp is that arXiv paper in the library: filed under its arXiv id with nothing
downloaded, and the same paper added again, by its arXiv id or as another copy, is the one already there."""

from __future__ import annotations

from pathlib import Path

import pytest

import stamped_pdfs
from paperdesk.core.library.library import Library
from paperdesk.core.sources.arxiv import ArxivClient
from paperdesk.core.sources.arxiv_feed import ArxivPaper

pytestmark = pytest.mark.slow

STAMP = "arXiv:2304.02623v1 [cs.CL] 5 Apr 2023"  # a paper the loopback arXiv knows, in another PDF than arXiv's


def _client(arxiv) -> ArxivClient:
    return ArxivClient(arxiv.api_url, delay_seconds=0, num_retries=1)


def test_a_stamped_local_pdf_is_filed_under_its_arxiv_id(library: Library, tmp_path: Path) -> None:
    paper = library.add_pdf(stamped_pdfs.paper(tmp_path / "my copy.pdf", STAMP)).paper
    assert (paper.id, paper.arxiv_id, paper.version) == ("2304.02623v1", "2304.02623", 1)
    # what the PDF says, as for any local PDF: nothing was fetched
    assert (paper.title, paper.authors, paper.abstract) == (stamped_pdfs.TITLE, stamped_pdfs.AUTHORS, "")
    assert paper.published == "2023-04-05" and paper.source_url == "https://arxiv.org/abs/2304.02623v1"
    assert library.get("2304.02623").id == library.get("arXiv:2304.02623v1").id == paper.id
    assert Path(paper.pdf_path).name == "2304.02623v1.pdf"  # type: ignore[arg-type]
    plain = library.add_pdf(stamped_pdfs.paper(tmp_path / "plain.pdf")).paper
    assert plain.id.startswith("local-") and plain.arxiv_id is None  # no stamp: a local paper as before


def test_a_stamped_pdf_then_its_arxiv_id_is_one_paper_and_nothing_is_downloaded(library: Library, tmp_path: Path,
                                                                                 arxiv) -> None:
    local = library.add_pdf(stamped_pdfs.paper(tmp_path / "beyond.pdf", STAMP)).paper
    client = _client(arxiv)
    for ref in ("2304.02623", "2304.02623v1", "https://arxiv.org/abs/2304.02623"):
        again = library.add_arxiv(ref, client)
        assert again.created is False and again.paper.id == local.id, ref
    found = ArxivPaper("2304.02623", 1, "Beyond Summarization", pdf_url=arxiv.base_url + "/pdf/2304.02623v1")
    assert library.add_arxiv(found.short_id, client, meta=found).paper.id == local.id  # a find result
    assert arxiv.requests == []
    assert library.store.count_papers() == 1


def test_an_arxiv_paper_then_a_stamped_copy_of_it_is_one_paper(library: Library, tmp_path: Path, arxiv) -> None:
    fetched = library.add_arxiv("2304.02623", _client(arxiv)).paper
    assert fetched.id == "2304.02623v1" and fetched.abstract
    copy = library.add_pdf(stamped_pdfs.paper(tmp_path / "beyond.pdf", STAMP))
    assert copy.created is False and copy.paper.id == fetched.id
    assert library.get(fetched.id).abstract == fetched.abstract  # arXiv's record stays as it was
    assert library.store.count_papers() == 1 and len(list(library.papers_dir.iterdir())) == 1
    # another version of the paper is another paper, as `add 2304.02623v2` would make it
    newer = library.add_pdf(stamped_pdfs.paper(tmp_path / "v2.pdf", "arXiv:2304.02623v2 [cs.CL] 9 May 2023"))
    assert newer.created and newer.paper.id == "2304.02623v2" and library.store.count_papers() == 2


def test_a_second_stamped_copy_is_the_paper_already_there(library: Library, tmp_path: Path) -> None:
    first = library.add_pdf(stamped_pdfs.paper(tmp_path / "a.pdf", STAMP)).paper
    other = stamped_pdfs.paper(tmp_path / "b.pdf", STAMP, references=("Lovelace. Notes. 1843.",))  # other bytes
    again = library.add_pdf(other)
    assert again.created is False and again.paper.id == first.id and library.store.count_papers() == 1
