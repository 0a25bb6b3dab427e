"""The citation route's passages: the cited chunk of the current draft and its neighbours in the paper.

"What does [2] say?" is about one passage, so its answer is written from
that passage and the chunks just before and after it (adjacent ordinals of
the same paper), not from a fresh search that may land elsewhere. A draft
source without a chunk id (older drafts) falls back to the chunks of its
page, then of the pages beside it.
"""

from __future__ import annotations

from typing import Any

from paperdesk.core.library.library import Hit

NEIGHBOURS = 1  # chunks taken on each side of the cited one


def cited_passages(library: Any, scope: dict[str, Any], neighbours: int = NEIGHBOURS) -> list[Hit]:
    """Hits for a citation scope ({citation, paper_ids, page, chunk_id}): the cited chunk first, then its
    neighbours in reading order; [] when the paper is no longer in the library."""
    paper_ids = scope.get("paper_ids") or []
    if not paper_ids:
        return []
    paper_id = paper_ids[0]
    chunks = library.store.chunks_of(paper_id)
    if not chunks:
        return []
    at = _cited_index(chunks, scope.get("chunk_id"), scope.get("page"))
    if at is None:
        return []
    paper = library.store.get_paper(paper_id)
    title = paper.title if paper is not None else paper_id
    order = [at] + [i for d in range(1, neighbours + 1) for i in (at - d, at + d) if 0 <= i < len(chunks)]
    return [_hit(chunks[i], title, 1.0 if i == at else 0.5) for i in order]


def _cited_index(chunks: list[Any], chunk_id: Any, page: Any) -> int | None:
    if chunk_id is not None:
        for i, c in enumerate(chunks):
            if c.id == int(chunk_id):
                return i
    if page is None:
        return None
    page = int(page)
    for spread in (0, 1):  # the cited page, then the page before or after it
        for i, c in enumerate(chunks):
            if c.page_start - spread <= page <= c.page_end + spread:
                return i
    return None


def _hit(chunk: Any, title: str, score: float) -> Hit:
    snippet = " ".join(chunk.text.split()[:40])
    return Hit(chunk.paper_id, title, chunk.id, chunk.page_start, chunk.page_end, chunk.section, snippet, score,
               None, None, via="")
