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

from paperdesk.core.agents import answer as answers
from paperdesk.core.cancel import CancelToken
from paperdesk.core.errors import NetworkError, PaperdeskError
from paperdesk.core.library.library import Hit, Library
from paperdesk.core.llm.backend import Backend
from paperdesk.core.agents.attribution import SOURCE_REF, split_sentences
from paperdesk.core.agents.evidence import is_boilerplate
from paperdesk.core.agents.restates import drop_restatements
from paperdesk.core.research import paper_answers
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
                            recall_k=ctx.recall_k, spread=True)
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
    """A cited sub-answer from the earlier steps' passages and the sub-question's own search; when
    several papers fit, one part per paper (paper_answers), so each paper's findings are in it."""
    question = str(params["question"])
    pool = [p for key in _as_list(params.get("inputs")) for p in (inputs.get(key) or {}).get("passages", [])]
    # the steps' passages, and the sub-question's own: a planner's search query can miss a paper it names
    candidates = [hit_of(p) for p in pool] + answers.retrieve(ctx.library, question, ctx.k, spread=True)
    if ctx.writer is None:
        raise PaperdeskError("no writer model is loaded; answer steps need one")
    parts = []
    named = paper_answers.named_in_library(ctx.library, question)
    missing = [pid for pid in named if not any(h.paper_id == pid for h in candidates)]
    if missing:  # a paper the question names is read even when no search so far reached it
        candidates += ctx.library.search(question, k=paper_answers.PER_PAPER * len(missing), papers=missing)
    grouped = paper_answers.groups(ctx.library, question, candidates, ctx.k, named) or [[]]
    texts = [[paper_answers.paper_text(ctx.library, group[0].paper_id)] if group and len(grouped) > 1 else []
             for group in grouped]
    for i, hits in enumerate(grouped):
        foreign = paper_answers.foreign_terms(question, texts[i], [t for j, g in enumerate(texts) if j != i for t in g])
        asked = paper_answers.scoped(question, hits[0], foreign) if len(grouped) > 1 else question
        result = answers.write(ctx.library, ctx.writer, asked, hits, on_token=ctx.on_token, cancel=ctx.cancel,
                               max_tokens=ctx.answer_tokens, dialogue=ctx.dialogue,
                               select=bool(ctx.settings["answer.select"]))
        if result.cancelled:
            from paperdesk.core.errors import CancelledError

            raise CancelledError("cancelled")
        hits = result.hits or hits  # the passages as read and numbered (one with nothing new is left out)
        if len(grouped) > 1:  # a sentence on another part's paper, written from this part's passages: dropped
            result.text, _ = paper_answers.drop_foreign(result.text, foreign)
            marks = {int(n) for n in SOURCE_REF.findall(result.text)}
            result.citations = [c for c in result.citations if int(c["n"]) in marks]
        # a paper the sub-question names is answered from, in its own words if the writer's did not hold
        about_named = bool(hits) and hits[0].paper_id in named
        if len(grouped) > 1 or about_named or not (result.not_found or result.fallback):
            failed = result.not_found or result.fallback  # its cited sentences are the closest passages, no answer
            held = [] if failed else [x for x in split_sentences(result.text) if SOURCE_REF.search(x)]
            if len(held) < paper_answers.QUOTE_BELOW and hits:  # the paper's own closest sentence, quoted
                quote, cited = paper_answers.quoted_part(ctx.library, question, hits, " ".join(held))
                if cited:
                    known = {c["n"] for c in result.citations} if held else set()
                    result.text = f"{' '.join(held)} {quote}".strip()
                    result.citations = ([c for c in result.citations] if held else []) + \
                        [c for c in cited if c["n"] not in known]
                    result.not_found = False
        parts.append((hits, result))
    if len(parts) == 1:
        hits, result = parts[0]
        text, citations, empty = result.text, result.citations, []
        not_found = result.not_found
    else:
        text, citations, hits, empty = paper_answers.join(parts, named)
        not_found = not citations
        if not_found:  # no paper's part held up: the first part's "not found" and its closest passages
            hits, result = parts[0]
            text, citations = result.text, result.citations
    text, restated = drop_restatements(text, question)  # a lead-in that only echoes the question
    if restated:
        marks = {int(n) for n in SOURCE_REF.findall(text)}
        citations = [c for c in citations if int(c["n"]) in marks]
    if citations and empty:
        text += " Nothing that could be cited on this was found in " + "; ".join(empty) + "."
    return {"question": question, "text": text, "citations": citations,
            "sources": _passages(ctx, hits), "supported": bool(citations) and not not_found,
            "fallback": any(r.fallback for _, r in parts), "paper_parts": len(parts),
            **({"restated": restated} if restated else {})}


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
