"""The research tools: each takes parameters and earlier results, and returns structured data.

Results are JSON-ready dicts (stored by output_key in the tracker):
  library_search / read_paper -> {"passages": [passage]}   passage = paper_id, title, page, chunk_id, text, score
  paper_summary                -> {"paper_id", "title", "summary", "abstract"}
  arxiv_search                 -> {"papers": [{arxiv_id, title, year, abstract, url}]}   (never added to the library)
  extract_list                 -> {"items": [{"item", "kind", "passage": {paper_id, page, chunk_id}}]}
  answer                       -> {"question", "text", "citations", "sources", "supported", "fallback"}
The engine runs each call under a timeout with its own cancel token (see engine.py).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any, Callable

import numpy as np

from paperdesk.core.agents import answer as answers
from paperdesk.core.cancel import CancelToken
from paperdesk.core.errors import NetworkError, PaperdeskError
from paperdesk.core.library.library import Hit, Library
from paperdesk.core.llm.backend import Backend
from paperdesk.core.agents.evidence import is_boilerplate
from paperdesk.core.research.item_kinds import misfit
from paperdesk.core.research.plan import _as_list

TEXT_WORDS = 80  # words of a passage kept in a result: enough to extract from and to show


@dataclass
class ToolContext:
    """What a tool may use. `cancel` is the step's own token (a timeout or the user sets it)."""

    library: Library
    writer: Backend | None
    settings: Any
    cancel: CancelToken = field(default_factory=CancelToken)
    arxiv: Any = None  # an ArxivClient, made on first use
    answer_tokens: int = 120
    k: int = 5
    dialogue: str = ""  # the optional "User dialogue" block for the answer prompts
    memory: Any = None  # the library's MemoryGraph: library_search adds the pages it recalls
    recall_k: int = 0
    on_token: Callable[[str], None] | None = None  # the answer tool's model tokens, live, as it writes them


Tool = Callable[[ToolContext, dict[str, Any], dict[str, Any]], dict[str, Any]]


def passage(hit: Hit, text: str | None = None) -> dict[str, Any]:
    return {"paper_id": hit.paper_id, "title": hit.title, "page": hit.page_start, "page_end": hit.page_end,
            "chunk_id": hit.chunk_id, "section": hit.section, "text": text or hit.snippet.replace("**", ""),
            "score": round(float(hit.score), 4), "keyword_score": hit.keyword_score, "vector_score": hit.vector_score,
            **({"via": hit.via} if hit.via else {})}


def hit_of(p: dict[str, Any]) -> Hit:
    return Hit(p["paper_id"], p.get("title", ""), int(p["chunk_id"]), int(p["page"]), int(p.get("page_end", p["page"])),
               p.get("section", ""), p.get("text", ""), float(p.get("score", 0.0)), p.get("keyword_score"),
               p.get("vector_score"), p.get("via", ""))


def _passages(ctx: ToolContext, hits: list[Hit]) -> list[dict[str, Any]]:
    chunks = ctx.library.store.chunks_by_ids([h.chunk_id for h in hits])
    return [passage(h, " ".join(chunks[h.chunk_id].text.split()[:TEXT_WORDS]) if h.chunk_id in chunks else None)
            for h in hits]


def library_search(ctx: ToolContext, params: dict[str, Any], inputs: dict[str, Any]) -> dict[str, Any]:
    hits = answers.retrieve(ctx.library, params["query"], int(params.get("k") or ctx.k), memory=ctx.memory,
                            recall_k=ctx.recall_k)
    return {"query": params["query"], "passages": _passages(ctx, hits)}


def read_paper(ctx: ToolContext, params: dict[str, Any], inputs: dict[str, Any]) -> dict[str, Any]:
    paper = ctx.library.get(str(params["paper"]))
    hits = ctx.library.search(params["query"], k=int(params.get("k") or 3), papers=[paper.id])
    return {"paper_id": paper.id, "title": paper.title, "query": params["query"], "passages": _passages(ctx, hits)}


def paper_summary(ctx: ToolContext, params: dict[str, Any], inputs: dict[str, Any]) -> dict[str, Any]:
    paper = ctx.library.get(str(params["paper"]))
    revision = ctx.library.store.current_revision(paper.id)
    return {"paper_id": paper.id, "title": paper.title, "summary": revision.text if revision else None,
            "abstract": paper.abstract}


def arxiv_search(ctx: ToolContext, params: dict[str, Any], inputs: dict[str, Any]) -> dict[str, Any]:
    if ctx.settings["offline"]:
        raise NetworkError("arxiv_search needs the network and paperdesk is offline")
    if ctx.arxiv is None:
        from paperdesk.core.sources.arxiv import ArxivClient

        ctx.arxiv = ArxivClient.from_settings(ctx.settings)
    found = ctx.arxiv.find(params["query"], max_results=int(params.get("max") or 5), cancel=ctx.cancel)
    return {"query": params["query"], "papers": [
        {"arxiv_id": p.short_id, "title": p.title, "year": p.year, "abstract": " ".join(p.abstract.split()[:60]),
         "url": p.abs_url} for p in found]}


# -- extract_list: names pulled from passages by pattern, each with its passage ----------------

_KIND_WORDS = {
    "dataset": ("dataset", "datasets", "corpus", "corpora", "benchmark", "benchmarks", "collection", "data"),
    "method": ("method", "methods", "model", "models", "approach", "approaches", "baseline", "baselines",
               "system", "systems", "algorithm", "tool", "technique"),
    "metric": ("metric", "metrics", "accuracy", "precision", "recall", "score", "f1", "measure", "measured",
               "ndcg", "bleu", "rouge", "auc", "error"),
}
_NAME = re.compile(r"\b(?:[A-Z][a-z]*[A-Z][A-Za-z0-9@\-]*|[A-Z]{2,}[A-Za-z0-9@\-]*|[A-Z][a-z]+(?:-[A-Z0-9][A-Za-z0-9]*)+"
                   r"|(?:nDCG|F1|BLEU|ROUGE|MAP|MRR)(?:@\d+)?)\b")
_NOT_NAMES = {"PDF", "URL", "HTML", "AI", "I", "II", "III", "IV", "CHI", "ACM", "IEEE", "USA", "UI", "ID", "ACL",
              "NLP", "API", "PhD", "UK", "LLM", "LLMs"}


def kind_of(text: str) -> str:
    """dataset, method or metric: the kind a free-text request names (method when unclear)."""
    low = text.lower()
    for kind, words in _KIND_WORDS.items():
        if any(w in low for w in (kind,) + words[:2]):
            return kind
    return "method"


def extract_list(ctx: ToolContext, params: dict[str, Any], inputs: dict[str, Any]) -> dict[str, Any]:
    kind = kind_of(str(params["kind"]))
    source = [p for key in _as_list(params["source"]) for p in (inputs.get(key) or {}).get("passages", [])]
    dropped: list[dict[str, str]] = []
    items = names_in(source, kind, dropped=dropped)
    return {"kind": kind, "items": items, **({"dropped": dropped} if dropped else {})}


_SENTENCE_END = re.compile(r"(?<!\bal\.)(?<!\be\.g\.)(?<!\bi\.e\.)(?<=[.!?])\s+")  # "X et al. [3] built" is one


def names_in(passages: list[dict[str, Any]], kind: str, limit: int = 12,
             dropped: list[dict[str, str]] | None = None) -> list[dict[str, Any]]:
    """Capitalised names and acronyms in sentences that mention the kind ("... on the SQuAD dataset"),
    each checked against the kind (item_kinds.misfit): a name that fits in no sentence goes to `dropped`
    with the reason, for the trace. A reference list or acknowledgements names people and venues: none."""
    words = _KIND_WORDS[kind]
    seen: dict[str, dict[str, Any]] = {}
    misfits: dict[str, dict[str, str]] = {}
    for p in passages:
        boilerplate = is_boilerplate(p.get("section", ""), p.get("text", ""))
        for sentence in _SENTENCE_END.split(p.get("text", "")):
            low = set(re.findall(r"[a-z0-9]+", sentence.lower()))
            if not low & set(words):
                continue
            for name in _NAME.findall(sentence):
                if name in _NOT_NAMES or len(name) < 2 or name.lower() in seen:
                    continue
                why = ("named in a reference list or acknowledgements" if boilerplate
                       else misfit(name, sentence, kind, p.get("text", "")))
                if why:
                    misfits.setdefault(name.lower(), {"item": name, "why": why})
                    continue
                seen[name.lower()] = {"item": name, "kind": kind, "passage": {
                    "paper_id": p["paper_id"], "page": p["page"], "chunk_id": p["chunk_id"]}}
    if dropped is not None:
        dropped.extend(v for k, v in misfits.items() if k not in seen)
    return list(seen.values())[:limit]


# -- answer: a cited sub-answer through the existing grounding ----------------------------------


def answer(ctx: ToolContext, params: dict[str, Any], inputs: dict[str, Any]) -> dict[str, Any]:
    question = str(params["question"])
    pool = [p for key in _as_list(params.get("inputs")) for p in (inputs.get(key) or {}).get("passages", [])]
    hits = closest(ctx.library, question, [hit_of(p) for p in pool], ctx.k) if pool else answers.retrieve(
        ctx.library, question, ctx.k)
    if ctx.writer is None:
        raise PaperdeskError("no writer model is loaded; answer steps need one")
    result = answers.write(ctx.library, ctx.writer, question, hits, on_token=ctx.on_token, cancel=ctx.cancel,
                           max_tokens=ctx.answer_tokens, dialogue=ctx.dialogue)
    if result.cancelled:
        from paperdesk.core.errors import CancelledError

        raise CancelledError("cancelled")
    return {"question": question, "text": result.text, "citations": result.citations,
            "sources": _passages(ctx, result.hits), "supported": bool(result.citations) and not result.not_found,
            "fallback": result.fallback}


def closest(library: Library, question: str, hits: list[Hit], k: int) -> list[Hit]:
    """The k hits (one per chunk) closest in meaning to the question: a sub-question's own passages."""
    unique = list({h.chunk_id: h for h in hits}.values())
    vectors = library.store.embeddings_by_ids([h.chunk_id for h in unique])
    unique = [h for h in unique if h.chunk_id in vectors]
    if not unique:
        return []
    q = library.embedder.encode_query(question)
    sims = np.stack([vectors[h.chunk_id] for h in unique]) @ q
    return [unique[i] for i in np.argsort(-sims)[:k]]


TOOL_FUNCS: dict[str, Tool] = {"library_search": library_search, "read_paper": read_paper,
                               "paper_summary": paper_summary, "arxiv_search": arxiv_search,
                               "extract_list": extract_list, "answer": answer}


def items_of(result: dict[str, Any] | None, cap: int) -> list[str]:
    """The values an iterate_over step runs once for: extracted items, passages' papers, or arXiv ids."""
    if not result:
        return []
    if "items" in result:
        values = [i["item"] for i in result["items"]]
    elif "passages" in result:
        values = list(dict.fromkeys(p["paper_id"] for p in result["passages"]))
    elif "papers" in result:
        values = [p["arxiv_id"] for p in result["papers"]]
    else:
        values = []
    return values[:cap]


def merge(iterations: list[tuple[str, dict[str, Any]]]) -> dict[str, Any]:
    """One result for an iterated step: each iteration's, plus their passages / items / papers joined."""
    out: dict[str, Any] = {"iterations": [{"item": item, "result": r} for item, r in iterations]}
    for key in ("passages", "items", "papers", "citations", "dropped"):
        joined = [x for _, r in iterations for x in (r.get(key) or [])]
        if joined:
            out[key] = joined
    return out
