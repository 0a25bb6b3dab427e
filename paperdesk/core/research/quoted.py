"""When no generated sub-answer held up: the papers' own sentences, quoted and cited.

The check lists every sub-question that stayed unsupported. If that is all of
them but the steps did find passages about the research question, the report
should not be empty (and cite nothing): it quotes the sentences of those
passages closest to the question, each with its [n], marked as quoted. Nothing
is generated, so nothing is invented; the unanswered list stays as it is.
"""

from __future__ import annotations

from typing import Any

from paperdesk.core.agents import answer as answers
from paperdesk.core.agents.attribution import SOURCE_REF, extract
from paperdesk.core.library import Library
from paperdesk.core.research.synthesizer import Section
from paperdesk.core.research.tools import closest, hit_of

NOTE = "quoted from the papers: no generated answer to the sub-questions was supported by its passages"
K = 4  # passages the quotes are taken from
QUOTES = 3


def passages_in(results: dict[str, Any]) -> list[dict[str, Any]]:
    """Every passage the steps found (search, read_paper, and their iterations), in step order, once each."""
    seen: dict[int, dict[str, Any]] = {}

    def take(result: Any) -> None:
        if not isinstance(result, dict):
            return
        for p in result.get("passages") or []:
            seen.setdefault(int(p["chunk_id"]), p)
        for it in result.get("iterations") or []:
            take(it.get("result"))

    for result in results.values():
        take(result)
    return list(seen.values())


def quoted_section(library: Library, question: str, results: dict[str, Any]) -> Section | None:
    """A section quoting the found passages' sentences closest to `question`; None when none is about it."""
    pool = passages_in(results)
    if not pool:
        return None
    q = library.embedder.encode_query(question)
    hits = closest(library, question, [hit_of(p) for p in pool], K)
    vectors = library.store.embeddings_by_ids([h.chunk_id for h in hits])
    hits = [h for h in hits if h.chunk_id in vectors and float(vectors[h.chunk_id] @ q) >= answers.MIN_VECTOR]
    if not hits:
        return None
    chunks = library.store.chunks_by_ids([h.chunk_id for h in hits])
    texts = [" ".join(chunks[h.chunk_id].text.split()) for h in hits]  # whole chunks: quotes are whole sentences
    text = extract(q, texts, library.embedder.encode, limit=QUOTES)
    used = sorted({int(m.group(1)) for m in SOURCE_REF.finditer(text) if 1 <= int(m.group(1)) <= len(hits)})
    if not used:
        return None
    by_n = {n: h for n, h in enumerate(hits, start=1)}
    answer = {"question": question, "text": text, "supported": True, "fallback": True,
              "citations": [{"n": n, "paper_id": by_n[n].paper_id, "title": by_n[n].title, "page": by_n[n].page_start,
                             "chunk_id": by_n[n].chunk_id, "quote": texts[n - 1][:240],
                             **({"via": by_n[n].via} if by_n[n].via else {})} for n in used],
              "sources": [{**p, "text": t} for p, t in zip((pool_by_id(pool)[h.chunk_id] for h in hits), texts)]}
    return Section(question, answer, NOTE)


def pool_by_id(pool: list[dict[str, Any]]) -> dict[int, dict[str, Any]]:
    return {int(p["chunk_id"]): p for p in pool}
