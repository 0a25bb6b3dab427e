"""Front matter is the title block only: an abstract headed by a small, plain "Abstract" line is its own
section, and a paper without section headings (a letter) is body text after its title, never front matter
to its end. Answers, summaries and discussions skip front matter, so either mistake hid the paper's text."""

from __future__ import annotations

import textwrap

import pymupdf

from paperdesk.core.agents.evidence import is_boilerplate
from paperdesk.core.ingest.pdf import parse_pdf

SENTENCES = [
    "The orchard survey counted pollinator visits on {n} apple trees across three valleys.",
    "Visits rose by {n} percent on trees planted beside wildflower strips.",
    "Observers walked fixed routes at dawn and recorded every bee that landed on a blossom.",
    "Rainy mornings were excluded because the insects stayed in their nests.",
    "A mixed model with valley as a random effect explained most of the variation in visits.",
    "Fruit set followed the visit counts closely in the second season.",
]


def _lines(count: int, start: int = 0) -> list[str]:
    text = " ".join(SENTENCES[(start + i) % len(SENTENCES)].format(n=10 + start + i) for i in range(count))
    return textwrap.wrap(text, 95)


def _write(page: pymupdf.Page, y: float, lines: list[str], size: float, font: str = "Times-Roman") -> float:
    for line in lines:
        page.insert_text((60, y), line, fontsize=size, fontname=font)
        y += size + 3
    return y


def _vignette(path):
    """A package vignette's page 1: the abstract's heading as small as the abstract itself, and not bold."""
    doc = pymupdf.open()
    page = doc.new_page()
    page.insert_text((120, 80), "Pollinators in Small Orchards", fontsize=17, fontname="Times-Bold")
    page.insert_text((240, 110), "Ada Example", fontsize=12, fontname="Times-Bold")
    page.insert_text((230, 125), "University of Nowhere", fontsize=11)
    page.insert_text((280, 150), "Abstract", fontsize=9)
    y = _write(page, 165, _lines(6), 9)
    page.insert_text((60, y + 20), "1. Introduction", fontsize=12, fontname="Times-Bold")
    _write(page, y + 40, _lines(30, 3), 11)
    _write(doc.new_page(), 60, _lines(60, 7), 11)
    doc.save(path)
    doc.close()
    return path


def _letter(path):
    """A letter: a title, its authors, then paragraphs with no section heading at all."""
    doc = pymupdf.open()
    page = doc.new_page()
    page.insert_text((120, 80), "Pollinator Visits Follow Wildflower Strips", fontsize=14, fontname="Times-Bold")
    page.insert_text((230, 100), "Ada Example and Ben Sample", fontsize=10)
    _write(page, 130, _lines(60), 10)
    _write(doc.new_page(), 60, _lines(80, 5), 10)
    doc.save(path)
    doc.close()
    return path


def test_a_small_plain_abstract_heading_opens_the_abstract(tmp_path):
    chunks = parse_pdf(_vignette(tmp_path / "vignette.pdf")).chunks
    abstract = [c for c in chunks if c.section == "Abstract"]
    assert abstract and "wildflower strips" in abstract[0].text
    assert not any(c.section == "Front matter" and "wildflower" in c.text for c in chunks)
    assert not is_boilerplate(abstract[0].section, abstract[0].text)
    assert any(c.section == "1. Introduction" for c in chunks)


def test_a_paper_without_headings_is_body_text_after_its_title(tmp_path):
    chunks = parse_pdf(_letter(tmp_path / "letter.pdf")).chunks
    assert len(chunks) >= 3
    body = [c for c in chunks if not is_boilerplate(c.section, c.text)]
    assert len(body) == len(chunks)  # every chunk is there for answers and summaries
    assert {c.page_start for c in body} == {1, 2}


def _plain_headings(path):
    """Headings set like the body, apart from the text only by the space around them."""
    doc = pymupdf.open()
    page = doc.new_page()
    page.insert_text((120, 80), "Pollinators in Small Orchards", fontsize=12, fontname="Times-Bold")
    page.insert_text((60, 110), "Abstract. " + SENTENCES[0].format(n=7) + " " + SENTENCES[1].format(n=9),
                     fontsize=8)
    page.insert_text((60, 140), "1. Introduction", fontsize=10)
    y = _write(page, 160, _lines(40, 2), 10)
    page.insert_text((60, y + 20), "Results.", fontsize=10)  # a sentence's end alone on a line: not a heading
    _write(page, y + 40, _lines(10, 4), 10)
    page = doc.new_page()
    y = _write(page, 60, _lines(40, 3), 10)
    page.insert_text((60, y + 20), "References", fontsize=10)
    _write(page, y + 40, ["Example, A. (2020). Pollinator counts. Journal of Orchards 3, 1-9."], 10)
    doc.save(path)
    doc.close()
    return path


def test_a_well_known_heading_in_plain_type_opens_its_section(tmp_path):
    sections = [c.section for c in parse_pdf(_plain_headings(tmp_path / "plain.pdf")).chunks]
    assert "1. Introduction" in sections and "References" in sections
    assert "Results" not in sections
    assert sections.index("1. Introduction") < sections.index("References")


def _capitals(path):
    """Section headings in bold capitals a point under the body's size, each alone in its block."""
    doc = pymupdf.open()
    page = doc.new_page()
    page.insert_text((120, 80), "Pollinator Visits Follow Wildflower Strips", fontsize=12, fontname="Times-Bold")
    page.insert_text((230, 100), "Ada Example and Ben Sample", fontsize=10)
    y = _write(page, 130, _lines(8), 10)
    page.insert_text((250, y + 20), "INTRODUCTION", fontsize=9, fontname="Times-Bold")
    y = _write(page, y + 40, _lines(30, 1), 10)
    page = doc.new_page()
    page.insert_text((250, 60), "FIELD METHODS", fontsize=9, fontname="Times-Bold")
    _write(page, 80, _lines(40, 2), 10)
    doc.save(path)
    doc.close()
    return path


def test_bold_capitals_under_the_body_size_alone_in_a_block_are_headings(tmp_path):
    chunks = parse_pdf(_capitals(tmp_path / "capitals.pdf")).chunks
    sections = [c.section for c in chunks]
    assert "Introduction" in sections and "Field Methods" in sections
    assert chunks[0].section != "Front matter" or "wildflower" not in chunks[0].text.lower()
