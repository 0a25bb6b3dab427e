"""Agent mode: the cited spot is found in the PDF with PyMuPDF's page.search_for.

Real library (SQLite, tantivy, MiniLM) over the CiteSee fixture PDF; no model: the citations are
made from the stored chunks, as the synthesizer makes them.
"""

from __future__ import annotations


import pymupdf
import pytest

from paperdesk.core.text.passages import locate_passage
from paperdesk.core.research.agent_actions import cited_page, found_in_pdf, passage_on_page

pytestmark = pytest.mark.slow  # the real embedding model indexes the fixture paper


@pytest.fixture
def paper(library, citesee_pdf):
    return library.add_pdf(citesee_pdf).paper


def cite(chunk, quote=None):
    return [{"n": 1, "paper_id": chunk.paper_id, "title": "", "page": chunk.page_start, "chunk_id": chunk.id,
             "quote": chunk.text[:240] if quote is None else quote}]


def test_the_quote_is_found_on_its_page_and_the_matched_text_is_highlighted(library, paper):
    chunk = next(c for c in library.store.chunks_of(paper.id) if c.page_start == 4 and len(c.text.split()) > 40)
    view = cited_page(library.store, cite(chunk))
    assert view is not None and view.page == 4 and view.paper_id == paper.id
    assert view.highlight == found_in_pdf(paper.pdf_path, [4], " ".join(chunk.text[:240].split()))[1]
    with pymupdf.open(paper.pdf_path) as doc:  # the highlight is what search_for matched on that page
        assert doc[3].search_for(view.highlight)
    assert locate_passage(view.text, view.highlight) is not None  # and the Reader finds it in the page text


def test_search_for_follows_the_words_over_a_line_end_and_gives_the_first_hit_only(paper):
    with pymupdf.open(paper.pdf_path) as doc:
        lines = [ln.split() for ln in doc[3].get_text().splitlines()]
    i = next(i for i in range(len(lines) - 1) if len(lines[i]) >= 6 and len(lines[i + 1]) >= 6
             and "-" not in lines[i][-1])
    quote = " ".join(lines[i][-4:] + lines[i + 1][:4]).upper()  # the end of one line and the start of the next
    found = found_in_pdf(paper.pdf_path, [4], quote)
    assert found is not None and found[0] == 4
    assert found[1].lower() == quote.lower()  # one hit, over two lines, as the page spells it


def test_a_later_page_of_the_chunk_is_tried_and_nothing_found_is_none(paper, citesee_pdf):
    with pymupdf.open(citesee_pdf) as doc:
        words = " ".join(doc[4].get_text().split()[40:50])  # ten words from page 5
    assert found_in_pdf(paper.pdf_path, [4, 5], words) == (5, found_in_pdf(paper.pdf_path, [5], words)[1])
    assert found_in_pdf(paper.pdf_path, [4, 5], "zebra quantum marmalade orbit sings loudly tonight") is None
    assert found_in_pdf(paper.pdf_path.replace(".pdf", ".missing.pdf"), [4], words) is None


def test_without_the_pdf_the_stored_page_text_is_matched_as_before(library, paper):
    chunk = next(c for c in library.store.chunks_of(paper.id) if c.page_start == 4 and len(c.text.split()) > 40)
    library.store.query("UPDATE papers SET pdf_path = ? WHERE id = ?", ("/nonexistent/gone.pdf", paper.id))
    view = cited_page(library.store, cite(chunk))
    text = library.store.page_text(paper.id, 4)
    assert view is not None and view.page == 4
    assert view.highlight == passage_on_page(text, " ".join(chunk.text[:240].split()).strip(" .…"))
