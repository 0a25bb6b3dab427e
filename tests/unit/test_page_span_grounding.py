"""A passage that runs over a page break is cited on the page where the supporting words are.

Real chunks of the fixture PDFs as ingest parses them, their real page text and the real embedder:
CiteSee's introduction chunk runs from page 1 onto page 2, where its literature-review example is; papermage's
introduction chunk runs from page 1 onto page 2, where "We introduce papermage ..." is (page 1's abstract
says much the same, but not in this passage).
"""

from functools import lru_cache

import numpy as np
import pytest

from conftest import PAPERS
from paperdesk.core.agents.chunk_pages import split_by_page
from paperdesk.core.agents.page_grounding import PageGrounder, SectionGrounding
from paperdesk.core.db.store import Chunk
from paperdesk.core.ingest.pdf import parse_pdf


@lru_cache(maxsize=None)
def parsed(name):
    return parse_pdf(PAPERS / f"{name}.pdf")


def spanning(name: str, starts: str) -> tuple[Chunk, list[str]]:
    """The paper's chunk over the page 1-2 break whose text starts with `starts`, and the paper's pages."""
    paper = parsed(name)
    for i, c in enumerate(paper.chunks):
        if (c.page_start, c.page_end) == (1, 2) and c.text.startswith(starts):
            return Chunk(i + 1, name, i, c.page_start, c.page_end, c.section, c.text), paper.pages
    raise AssertionError(f"no chunk of {name} over pages 1-2 starts with {starts!r}")


def grounder(chunk: Chunk, pages: list[str], embedder) -> PageGrounder:
    return PageGrounder([chunk], np.asarray(embedder.encode([chunk.text])), embedder.encode,
                        lambda p: pages[p - 1] if p <= len(pages) else "", page_count=len(pages))


@pytest.fixture(scope="module")
def citesee(embedder):
    chunk, pages = spanning("2302.07302v1", "1 INTRODUCTION")
    return chunk, pages, grounder(chunk, pages, embedder)


def test_the_chunk_is_split_where_the_page_breaks(citesee):
    chunk, pages, _ = citesee
    parts = split_by_page(chunk.text, 1, 2, lambda p: pages[p - 1])
    assert parts[1][:3] == ["1", "introduction", "science"]
    # the sentence the page break cuts goes on at the top of page 2; the figure caption set there follows it
    assert parts[2][:4] == ["only", "a", "subset", "of"]
    assert " ".join(parts[1]).endswith("between all inline citations and the citing paper")


@pytest.mark.parametrize("sentence", [
    "Literature reviews are especially challenging, as users read and skim many papers with dozens or hundreds "
    "of inline citations [p. 1].",
    "A user reading about sentiment analysis on customer reviews might want citations to natural language "
    "processing but not to e-commerce marketing [p. 1].",
])
def test_a_model_citation_of_the_first_page_moves_to_the_page_of_the_words(citesee, sentence):
    _, _, g = citesee
    out = SectionGrounding("")
    checked = g.ground_sentence(sentence, out)
    assert checked is not None and checked.endswith("[p. 2].")
    assert "[p. 1]" not in checked and out.removed == [1]


def test_an_uncited_sentence_from_the_second_page_cites_it(citesee):
    _, _, g = citesee
    out = SectionGrounding("")
    checked = g.ground_sentence("During literature reviews users need to read and skim many papers, each with dozens "
                                "or hundreds of inline citations.", out)
    assert checked is not None and checked.endswith("[p. 2].")


def test_a_sentence_from_the_first_page_keeps_its_citation(citesee):
    _, _, g = citesee
    out = SectionGrounding("")
    checked = g.ground_sentence("One survey study estimated that inline citations accounted for around one in five "
                                "(21%) of paper discoveries during research [p. 1].", out)
    assert checked is not None and checked.endswith("[p. 1].") and out.removed == []


def test_words_page_one_also_holds_elsewhere_cite_the_passage_page(embedder):
    chunk, pages = spanning("papermage", "2022; Trewartha")
    g = grounder(chunk, pages, embedder)
    sentence = "papermage is an open-source Python toolkit for processing scientific documents."
    assert g.pages_for(sentence, chunk) == (2, 2)
    out = SectionGrounding("")
    assert g.ground_sentence(sentence, out) == ("papermage is an open-source Python toolkit for processing "
                                                "scientific documents [p. 2].")
