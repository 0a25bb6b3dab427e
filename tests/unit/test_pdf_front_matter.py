"""Title, authors and date of a PDF's paper, on first pages laid out as real templates set them."""

from __future__ import annotations

from pathlib import Path

import pytest

import front_matter_pdfs
from paperdesk.core.ingest import dates
from paperdesk.core.ingest.frontmatter import proper_case
from paperdesk.core.ingest.pdf import parse_pdf


def test_a_title_over_tightly_led_lines_is_read_whole(tmp_path: Path) -> None:
    doc = parse_pdf(front_matter_pdfs.tight_title(tmp_path / "longeval.pdf"))
    assert doc.title == "LongEval: Guidelines for Human Evaluation of Faithfulness in Long-form Summarization"
    assert doc.authors == ["Kalpesh Krishna", "Erin Bransom", "Bailey Kuehl", "Mohit Iyyer"]
    assert doc.published == "2023-01-25" and doc.published_from == "metadata"


def test_authors_in_capitals_get_their_own_casing_and_the_acm_year(tmp_path: Path) -> None:
    doc = parse_pdf(front_matter_pdfs.acm_journal(tmp_path / "paper-plain.pdf"))
    assert doc.title == ("Paper Plain: Making Medical Research Papers Approachable to Healthcare Consumers "
                         "with Natural Language Processing")
    assert doc.authors == ["Tal August", "Lucy Lu Wang", "Jonathan Bragg", "Marti A. Hearst", "Andrew Head",
                           "Kyle Lo"]
    assert doc.published == "2023" and doc.published_from == "page"  # not the file's 2024 creation date


def test_authors_are_the_names_under_the_title_not_phrases_of_the_abstract(tmp_path: Path) -> None:
    doc = parse_pdf(front_matter_pdfs.body_font_authors(tmp_path / "scibert.pdf"))
    assert doc.title == "SciBERT: A Pretrained Language Model for Scientific Text"
    assert doc.authors == ["Iz Beltagy", "Kyle Lo", "Arman Cohan"]
    assert doc.published is None  # no stamp, no venue line, no metadata date: no made-up year


@pytest.mark.parametrize(("name", "cased"), [
    ("MARTI A. HEARST", "Marti A. Hearst"),
    ("JEAN-PIERRE VAN DER BERG", "Jean-Pierre van der Berg"),
    ("SEAN O'BRIEN", "Sean O'Brien"),
    ("KATHLEEN MCKEOWN", "Kathleen McKeown"),
    ("Amy X. Zhang", "Amy X. Zhang"),
])
def test_proper_case(name: str, cased: str) -> None:
    assert proper_case(name) == cased


def test_proper_case_takes_the_spelling_the_page_uses() -> None:
    assert proper_case("DANIEL DESOUSA", "ACM Reference Format: Daniel DeSousa. 2021.") == "Daniel DeSousa"


def test_dates_from_stamp_id_page_and_metadata() -> None:
    assert dates.stamp_date("arXiv:2302.07302v1 [cs.HC] 14 Feb 2023") == "2023-02-14"
    assert dates.stamp_date("arXiv:2206.10883v3  [cs.CL]  22 Jul 2022") == "2022-06"  # v3: the id's month
    assert dates.arxiv_id_date("1903.10676") == "2019-03"
    assert dates.arxiv_id_date("hep-th/9901001") == "1999-01"
    assert dates.arxiv_id_date("local-0123456789ab") is None
    assert dates.page_year("CHI ’23, April 23–28, 2023, Hamburg, Germany") == "2023"
    assert dates.page_year("© 2019 Association for Computational Linguistics") == "2019"
    assert dates.page_year("In Proceedings of the 2020 Conference on Empirical Methods") == "2020"
    assert dates.page_year("as shown by Smith et al. (2018) and Lee (2021)") is None  # citations date others
    assert dates.metadata_date({"creationDate": "D:20220725012729Z"}) == "2022-07-25"
    assert dates.metadata_date({"creationDate": "D:18000101", "modDate": "D:2021"}) == "2021"
    assert dates.metadata_date({"creationDate": "", "modDate": "garbage"}) is None
