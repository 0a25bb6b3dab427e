"""The memory graph as one more source for sem-search and research.

What earlier discussions established is stored as observations that name the
paper and page they came from. Recall turns the observations that match a
question back into that page's passage (the chunk of the page closest to the
question), so an answer cites the paper and page, never "memory" alone; the
hit's `via` says which memory led to it ("discussion 3 turn 2", "term
'attention'"), shown beside the source.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from paperdesk.core.library.library import Hit

if TYPE_CHECKING:
    from paperdesk.core.library.library import Library
    from paperdesk.core.memory.graph import MemoryGraph

NODES = 5  # memory entities looked at per question
MIN_MEMORY = 0.35  # the remembered fact must be about the question (cosine of "name: observation", MiniLM)
MIN_SIMILARITY = 0.3  # and so must the passage it points to


def recall(library: "Library", memory: "MemoryGraph | None", question: str, have: set[int] | None = None,
           k: int = 2) -> list[Hit]:
    """Up to `k` library passages that memory points to for `question`, best first, none already in `have`."""
    if memory is None or k <= 0 or not question.strip() or memory.count() == 0:
        return []
    have = set(have or ())
    facts = [(entity, o) for entity in memory.search_nodes(question, k=NODES).entities
             for o in entity.observations if o.paper_id and o.page]
    if not facts:
        return []
    q = library.embedder.encode_query(question)
    # search_nodes ranks; it does not judge: a fact only counts when it is itself about the question
    about = library.embedder.encode([f"{e.name}: {o.text}" for e, o in facts]) @ q
    pages: dict[tuple[str, int], str] = {}  # (paper, page) -> which memory led there, the closest first
    for i in np.argsort(-about):
        if about[i] >= MIN_MEMORY:
            entity, o = facts[i]
            pages.setdefault((o.paper_id, int(o.page)), _via(entity.name, entity.type, o))
    found: dict[int, Hit] = {}
    papers: dict[str, tuple[object, list]] = {}  # paper id -> (paper or None, its chunks): read once each
    for (paper_id, page), via in pages.items():
        if paper_id not in papers:
            stored = library.store.get_paper(paper_id)
            papers[paper_id] = (stored, library.store.chunks_of(paper_id) if stored else [])
        paper, paper_chunks = papers[paper_id]
        if paper is None:  # removed since it was discussed: nothing to cite
            continue
        chunks = [c for c in paper_chunks if c.page_start <= page <= c.page_end]
        vectors = library.store.embeddings_by_ids([c.id for c in chunks])
        scored = [(float(np.dot(vectors[c.id], q)), c) for c in chunks if c.id in vectors and c.id not in have]
        if not scored:
            continue
        similarity, chunk = max(scored, key=lambda sc: sc[0])
        if similarity < MIN_SIMILARITY or chunk.id in found:
            continue
        found[chunk.id] = Hit(paper_id, paper.title, chunk.id, chunk.page_start, chunk.page_end, chunk.section,
                              " ".join(chunk.text.split()[:60]), similarity, None, similarity, via=via)
    return sorted(found.values(), key=lambda h: -h.score)[:k]


def _via(name: str, kind: str, observation) -> str:  # type: ignore[no-untyped-def]
    if observation.discussion_id is not None:
        return f"memory: discussion {observation.discussion_id}" + (
            f" turn {observation.turn}" if observation.turn else "")
    return f"memory: {kind} '{name[:40]}'"
