"""When no generated sub-answer held up: the papers' own sentences, quoted and cited.

The check lists every sub-question that stayed unsupported. If that is all of
them but the steps did find passages about the research question, the report
should not be empty (and cite nothing): it quotes the sentences of those
passages closest to the question, each with its [n], after one line saying
which questions no generated answer held up for (the report lists them
nowhere else). Nothing is generated, so nothing is invented.
"""

from __future__ import annotations

from typing import Any

from paperdesk.core.agents import answer as answers
from paperdesk.core.agents.attribution import SOURCE_REF, extract
from paperdesk.core.library.library import Library
from paperdesk.core.research.synthesizer import Section

NOTE = ("No generated answer held up against its passages, for: {questions}. Quoted instead: the papers' own "
        "sentences closest to the question")
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


def quoted_section(library: Library, question: str, results: dict[str, Any],
                   unanswered: list[str] | None = None) -> Section | None:
    """A section quoting the found passages' sentences closest to `question`; None when none is about it.

    Its lead says first which questions no generated answer held up for, so the report says it once
    (the caller lists them nowhere else)."""
    pool = passages_in(results)
    if not pool:
        return None
    q = library.embedder.encode_query(question)
    vectors = library.store.embeddings_by_ids([int(p["chunk_id"]) for p in pool])
    scored = sorted(((float(vectors[int(p["chunk_id"])] @ q), n) for n, p in enumerate(pool)
                     if int(p["chunk_id"]) in vectors), reverse=True)[:K]
    kept = [pool[n] for score, n in scored if score >= answers.MIN_VECTOR]
    if not kept:
        return None
    chunks = library.store.chunks_by_ids([int(p["chunk_id"]) for p in kept])
    texts = [" ".join(chunks[int(p["chunk_id"])].text.split()) for p in kept]  # whole chunks: whole sentences
    text = extract(q, texts, library.embedder.encode, limit=QUOTES)
    used = sorted({int(m.group(1)) for m in SOURCE_REF.finditer(text) if 1 <= int(m.group(1)) <= len(kept)})
    if not used:
        return None
    answer = {"question": question, "text": text, "supported": True, "fallback": True,
              "citations": [_citation(n, kept[n - 1], texts[n - 1]) for n in used],
              "sources": [{**p, "text": t} for p, t in zip(kept, texts)]}
    return Section(question, answer, lead=NOTE.format(questions="; ".join(unanswered or [question])))


def _citation(n: int, p: dict[str, Any], text: str) -> dict[str, Any]:
    return {"n": n, "paper_id": p["paper_id"], "title": p.get("title", ""), "page": p["page"],
            "chunk_id": int(p["chunk_id"]), "quote": text[:240], **({"via": p["via"]} if p.get("via") else {})}
