"""Cited answers for sem-search: hybrid search over the library, then an answer citing [n] sources.

Each [n] maps to (paper, page, snippet) of the n-th source passage. Numbers
the sources do not have are removed; if nothing relevant is found the answer
says so instead of inventing one.
"""

from __future__ import annotations

import re
import time
from dataclasses import dataclass, field
from typing import Any, Callable

from paperdesk.core.agents.summarizer import drop_repeats, make_request
from paperdesk.core.cancel import CancelToken
from paperdesk.core.library import Hit, Library
from paperdesk.core.llm.backend import Backend, generate
from paperdesk.core.prompts import render

SOURCE_REF = re.compile(r"\[(\d{1,2})\]")
MIN_VECTOR = 0.25  # below this cosine, with no keyword match, a passage is not about the question
NOTHING_FOUND = "Nothing in your library answers this; add papers on the topic (find, then summarize) and ask again."


@dataclass
class AnswerResult:
    text: str
    citations: list[dict[str, Any]]
    hits: list[Hit]
    cancelled: bool
    timings: dict[str, float] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        return {"text": self.text, "citations": self.citations, "hits": [h.to_json() for h in self.hits],
                "timings": {k: round(v, 3) for k, v in self.timings.items()}}


def relevant(hits: list[Hit]) -> list[Hit]:
    """Hits about the question: close in meaning, or keyword-only hits the vector side never scored."""
    return [h for h in hits if (h.vector_score or 0.0) >= MIN_VECTOR or (h.vector_score is None and h.keyword_score)]


def answer(
    library: Library,
    backend: Backend,
    question: str,
    k: int = 5,
    on_token: Callable[[str], None] | None = None,
    cancel: CancelToken | None = None,
    max_tokens: int = 160,
) -> AnswerResult:
    start = time.perf_counter()
    hits = relevant(library.search(question, k=k))
    timings = {"search_s": time.perf_counter() - start}
    if not hits:
        if on_token is not None:
            on_token(NOTHING_FOUND)
        return AnswerResult(NOTHING_FOUND, [], [], False, timings)
    chunks = library.store.chunks_by_ids([h.chunk_id for h in hits])
    sources = "\n".join(
        f"[{n}] ({h.title}, p. {h.page_start}) {' '.join(chunks[h.chunk_id].text.split()[:120])}"
        for n, h in enumerate(hits, start=1)
    )
    result = generate(backend, make_request(backend, render("answer", sources=sources, question=question.strip()),
                                            max_tokens=max_tokens, stop=["\nQuestion:", "\nSources:", "\n\n\n"],
                                            temperature=0.2, seed=1),
                      on_token=on_token, cancel=cancel)
    timings["first_token_s"] = (result.first_token_s or 0.0) + timings["search_s"]
    timings["total_s"] = time.perf_counter() - start
    text = SOURCE_REF.sub(lambda m: m.group(0) if 1 <= int(m.group(1)) <= len(hits) else "", drop_repeats(result.text))
    used = sorted({int(m.group(1)) for m in SOURCE_REF.finditer(text)})
    citations = [
        {"n": n, "paper_id": hits[n - 1].paper_id, "page": hits[n - 1].page_start, "chunk_id": hits[n - 1].chunk_id,
         "quote": hits[n - 1].snippet.replace("**", "")}
        for n in used
    ]
    return AnswerResult(text.strip(), citations, hits, result.cancelled, timings)
