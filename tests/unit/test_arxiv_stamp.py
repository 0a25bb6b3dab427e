"""arXiv's stamp on a PDF's first page names its arXiv id; an id cited anywhere else never does."""

from __future__ import annotations

from pathlib import Path

import pytest

import stamped_pdfs
from paperdesk.core.ingest.arxiv_stamp import is_stamp, stamp_id
from paperdesk.core.ingest.pdf import parse_pdf


@pytest.mark.parametrize(("stamp", "arxiv_id"), [
    ("arXiv:2302.07302v1 [cs.HC] 14 Feb 2023", "2302.07302v1"),
    ("arXiv:2206.10883v3  [cs.CL]  22 Jul 2022", "2206.10883v3"),  # spaces as MuPDF may leave them
    ("arXiv:1707.04066v1 [astro-ph.EP] 13 Jul 2017", "1707.04066v1"),
    ("arXiv:0704.0001v2 [hep-ph] 24 Jul 2007", "0704.0001v2"),  # four-digit numbers of 2007-2014
    ("arXiv:2302.07302 [cs.HC] 14 Feb 2023", "2302.07302"),  # no version shown: none made up
    ("arXiv:hep-th/9901001v2 12 Jan 1999", "hep-th/9901001v2"),  # old style: the archive is the category
    ("arXiv:math/0211159v1 [math.DG] 11 Nov 2002", "math/0211159v1"),
    ("arXiv:cond-mat/0410550v3 [cond-mat.stat-mech] 10 Mar 2005", "cond-mat/0410550v3"),
])
def test_a_stamp_names_its_id_with_the_version_it_shows(stamp: str, arxiv_id: str) -> None:
    assert is_stamp(" ".join(stamp.split()))
    assert stamp_id(stamp) == arxiv_id


@pytest.mark.parametrize("line", [
    "",
    "arXiv:2302.07302",  # a bare id, as a paper cites one
    "Chang et al. 2023. CiteSee. arXiv:2302.07302v1 [cs.HC] 14 Feb 2023",  # a reference naming the id
    "see arXiv:2302.07302v1 [cs.HC] 14 Feb 2023 for details",
    "arXiv:2302.07302v0 [cs.HC] 14 Feb 2023",  # no version 0
    "arXiv:1234.5 [cs.HC] 14 Feb 2023",
    "arXiv:HEP-TH/9901001v2 12 Jan 1999",
    "Preprint submitted to arXiv 14 Feb 2023",
])
def test_anything_but_a_whole_stamp_line_names_no_id(line: str) -> None:
    assert not is_stamp(line)
    assert stamp_id(line) == ""


def test_a_stamped_pdf_gives_the_id_and_reads_as_it_would_without_the_stamp(tmp_path: Path) -> None:
    stamped = parse_pdf(stamped_pdfs.paper(tmp_path / "neo.pdf", "arXiv:1707.04066v1 [cs.DL] 13 Jul 2017"))
    plain = parse_pdf(stamped_pdfs.paper(tmp_path / "plain.pdf"))
    assert stamped.arxiv_id == "1707.04066v1" and plain.arxiv_id == ""
    assert stamped.title == plain.title == stamped_pdfs.TITLE
    assert stamped.authors == plain.authors == stamped_pdfs.AUTHORS
    assert stamped.pages == plain.pages  # the stamp is kept out of the text
    assert (stamped.published, stamped.published_from) == ("2017-07-13", "arxiv")


def test_an_old_style_stamp_is_kept_out_of_the_text_too(tmp_path: Path) -> None:
    stamped = parse_pdf(stamped_pdfs.paper(tmp_path / "old.pdf", "arXiv:hep-th/9901001v2 12 Jan 1999"))
    plain = parse_pdf(stamped_pdfs.paper(tmp_path / "plain.pdf"))
    assert stamped.arxiv_id == "hep-th/9901001v2"
    assert (stamped.title, stamped.authors, stamped.pages) == (plain.title, plain.authors, plain.pages)


def test_ids_in_the_text_references_or_a_later_page_are_not_the_papers(tmp_path: Path) -> None:
    cited = stamped_pdfs.paper(
        tmp_path / "cites.pdf", in_text="our counts follow arXiv:1707.04066v1 [cs.DL] 13 Jul 2017 closely",
        references=("Smith. Near earth objects. arXiv:2302.07302v1 [cs.HC] 14 Feb 2023", "arXiv:2110.02751"))
    assert parse_pdf(cited).arxiv_id == ""
    later = stamped_pdfs.paper(tmp_path / "later.pdf", "arXiv:1707.04066v1 [cs.DL] 13 Jul 2017", stamp_on_page=2)
    assert parse_pdf(later).arxiv_id == ""  # only the title page's stamp says which paper this is


def test_the_fixture_papers_carry_their_ids(citesee_pdf: Path) -> None:
    assert parse_pdf(citesee_pdf).arxiv_id == "2302.07302v1"
