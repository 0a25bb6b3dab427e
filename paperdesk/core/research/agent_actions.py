"""What agent mode does after a report: open the most-cited page, offer arXiv finds.

Reader mode shows citations only; plan and agent modes share the research itself.
The cited spot is found in the paper's PDF with PyMuPDF's `page.search_for` (the
quote's first words, on the cited page and the rest of the cited chunk's pages):
the page it is on and the words it matched there (PyMuPDF's words, in reading order)
become the Reader's page and highlight. When the PDF is gone or search_for finds nothing, the longest run of
the quote found verbatim in the stored page text is highlighted instead.
"""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pymupdf

from paperdesk.core.commands.views import PageView
from paperdesk.core.research.highlight_words import words_under

if TYPE_CHECKING:
    from paperdesk.core.research.researcher import ResearchResult
    from paperdesk.core.research.tracker import Tracker
    from paperdesk.core.db.store import Store

HIGHLIGHT_WORDS = 14  # long enough to be unique on a page, short enough to sit on a few lines
SEARCH_WORDS = 8  # the quote's words handed to search_for: unique on a page, and few enough to stay on one
MIN_SEARCH_WORDS = 5  # fewer words match too many places on a page
SEARCH_STARTS = 12  # where in the quote a search may start (a chunk can open with a heading or a broken glyph)


def most_cited(citations: list[dict[str, Any]]) -> dict[str, Any] | None:
    """The first citation (lowest [n]) of the paper cited most often; ties go to the paper cited first."""
    if not citations:
        return None
    counts = Counter(c["paper_id"] for c in citations)
    order = {pid: i for i, pid in reversed(list(enumerate(c["paper_id"] for c in citations)))}
    best = max(counts, key=lambda pid: (counts[pid], -order[pid]))
    return min((c for c in citations if c["paper_id"] == best), key=lambda c: c["n"])


def passage_on_page(page_text: str, quote: str, words: int = HIGHLIGHT_WORDS) -> str:
    """The longest run (up to `words` words) of the quote's start found verbatim on the page, or ''."""
    flat_page = " ".join(page_text.split())
    tokens = quote.split()
    for start in range(0, min(len(tokens), 40)):
        for size in range(min(words, len(tokens) - start), 3, -1):
            piece = " ".join(tokens[start:start + size])
            if piece in flat_page:
                return piece
    return ""


def found_in_pdf(pdf_path: str | Path, pages: list[int], quote: str, words: int = SEARCH_WORDS
                 ) -> tuple[int, str] | None:
    """(page number, the text PyMuPDF's search_for matched) for the quote's words, or None.

    The pages are tried in the order given; on each, `words` consecutive words of the quote
    (all of it when shorter, never fewer than MIN_SEARCH_WORDS), from its start onwards, until
    one is found. search_for ignores case and follows the words across line ends.
    """
    tokens = quote.split()
    size = min(words, len(tokens))
    if size < MIN_SEARCH_WORDS:
        return None
    try:
        doc = pymupdf.open(str(pdf_path))
    except Exception:  # noqa: BLE001 - a missing or damaged PDF: the caller falls back to the stored text
        return None
    with doc:
        for page_no in pages:
            if not 1 <= page_no <= doc.page_count:
                continue
            page = doc[page_no - 1]
            for start in range(0, min(SEARCH_STARTS, len(tokens) - size + 1)):
                needle = " ".join(tokens[start:start + size])
                rects = page.search_for(needle)
                if rects:
                    return page_no, _first_hit(page, rects, size) or needle
    return None


def _first_hit(page: Any, rects: list[Any], size: int) -> str:
    """The page's words under the first hit (search_for gives one rect per line of every hit, in order),
    whole and in reading order: clipping characters to the rects garbled them."""
    return " ".join(words_under(page, rects, size))


def cited_page(store: "Store", citations: list[dict[str, Any]]) -> PageView | None:
    """The most-cited paper at its cited page, with the cited passage to highlight; None without citations."""
    cite = most_cited(citations)
    if cite is None:
        return None
    paper = store.get_paper(cite["paper_id"])
    if paper is None:
        return None
    page = int(cite["page"])
    quote = cite.get("quote") or ""
    chunk = store.chunks_by_ids([cite["chunk_id"]]).get(cite["chunk_id"]) if cite.get("chunk_id") is not None else None
    if not quote and chunk is not None:
        quote = chunk.text
    pages = [page] + ([p for p in range(chunk.page_start, chunk.page_end + 1) if p != page] if chunk else [])
    found = found_in_pdf(paper.pdf_path, pages, _clean(quote)) if paper.pdf_path else None
    if found is not None:
        text = store.page_text(paper.id, found[0])
        if text is not None:
            return PageView(paper.id, paper.title, found[0], paper.page_count, text, found[1])
    text = store.page_text(paper.id, page)
    if text is None:
        return None
    return PageView(paper.id, paper.title, page, paper.page_count, text, passage_on_page(text, _clean(quote)))


def _clean(quote: str) -> str:
    return re.sub(r"\s+", " ", quote).strip(" .…")


def arxiv_offers(tracker: "Tracker", result: "ResearchResult", limit: int = 5, store: "Store | None" = None
                 ) -> list[tuple[str, str]]:
    """(arXiv id, title) of papers the run's arxiv_search steps found (they are not added by the search);
    with `store`, not those the library has already (any version)."""
    if result.run_id is None:
        return []
    keys = [s.output_key for s in result.plan.steps if s.tool == "arxiv_search"]
    if not keys:
        return []
    found = tracker.results(result.run_id)
    offers: list[tuple[str, str]] = []
    for key in keys:
        value = found.get(key) or {}
        for paper in value.get("papers", []) if isinstance(value, dict) else []:
            if not paper.get("arxiv_id") or paper["arxiv_id"] in {o[0] for o in offers}:
                continue
            if store is None or not _in_library(store, paper["arxiv_id"]):
                offers.append((paper["arxiv_id"], str(paper.get("title", ""))))
    return offers[:limit]


def _in_library(store: "Store", arxiv_id: str) -> bool:
    """Any version of the paper is in the library (added from arXiv, or a PDF filed under that id)."""
    base = re.sub(r"v\d+$", "", arxiv_id)
    return bool(store.find_by_arxiv(base)) or store.get_paper(arxiv_id) is not None
