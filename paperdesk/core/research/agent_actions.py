"""What agent mode does after a report (seed 003): open the most-cited page, offer arXiv finds.

Reader mode shows citations only; plan and agent modes share the research itself.
The page's highlight is a passage copied verbatim from the page text, so a face
can find it on the page (PyMuPDF `search_for` in the Reader, plain text elsewhere).
"""

from __future__ import annotations

import re
from collections import Counter
from typing import TYPE_CHECKING, Any

from paperdesk.core.views import PageView

if TYPE_CHECKING:
    from paperdesk.core.research.researcher import ResearchResult
    from paperdesk.core.research.tracker import Tracker
    from paperdesk.core.store import Store

HIGHLIGHT_WORDS = 14  # long enough to be unique on a page, short enough to sit on a few lines


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


def cited_page(store: "Store", citations: list[dict[str, Any]]) -> PageView | None:
    """The most-cited paper at its cited page, with the cited passage to highlight; None without citations."""
    cite = most_cited(citations)
    if cite is None:
        return None
    paper = store.get_paper(cite["paper_id"])
    page = int(cite["page"])
    text = store.page_text(cite["paper_id"], page) if paper else None
    if paper is None or text is None:
        return None
    quote = cite.get("quote") or ""
    if not quote and cite.get("chunk_id") is not None:
        chunk = store.chunks_by_ids([cite["chunk_id"]]).get(cite["chunk_id"])
        quote = chunk.text if chunk else ""
    return PageView(paper.id, paper.title, page, paper.page_count, text, passage_on_page(text, _clean(quote)))


def _clean(quote: str) -> str:
    return re.sub(r"\s+", " ", quote).strip(" .…")


def arxiv_offers(tracker: "Tracker", result: "ResearchResult", limit: int = 5) -> list[tuple[str, str]]:
    """(arXiv id, title) of papers the run's arxiv_search steps found (they are not added by the search)."""
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
            if paper.get("arxiv_id") and paper["arxiv_id"] not in {o[0] for o in offers}:
                offers.append((paper["arxiv_id"], str(paper.get("title", ""))))
    return offers[:limit]
