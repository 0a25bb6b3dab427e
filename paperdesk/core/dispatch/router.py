"""The router for questions: citation, direct-paper, simple or complex.

- citation: the question points at a numbered source of the current draft;
- direct-paper: it names one paper (id, title words, an ordinal, "this paper");
- simple: a short factual question (about 8 words or fewer, no comparison/survey words);
- complex: comparison, survey, multi-part or "across papers" questions.
Rules decide; the exemplar scores only break the tie for mid-length questions.
"""

from __future__ import annotations

import re

from paperdesk.core.text.citation_refs import CITE_DEICTIC as _CITE_DEICTIC
from paperdesk.core.text.citation_refs import CITE_NUM as _CITE_NUM
from paperdesk.core.text.citation_refs import CITE_ORD as _CITE_ORD
from paperdesk.core.text.citation_refs import ORDINALS
from paperdesk.core.dispatch import resolve, slots
from paperdesk.core.dispatch.exemplars import IntentScores
from paperdesk.core.dispatch.types import Decision, DispatchContext

_COMPLEX = re.compile(
    r"\b(?:compare|comparing|comparison|contrast|versus|vs\.?|differ\w*|difference\w*|across|survey\w*|overview|"
    r"literature|state of the art|trade-?offs?|pros and cons|relate|relation(?:ship)?s? between|similarit\w+|"
    r"all (?:my|the|these|of the) papers|each (?:paper|of)|which papers|what papers|in general|report on|research|"
    r"landscape|trends?|approaches|methods used|evolve[ds]?|history of|strengths and weaknesses|open problems|"
    r"synthesi[sz]e|how do (?:they|these|the papers))\b", re.I)
_MULTI = re.compile(r"\?.+\?|\b(?:and|also) (?:how|why|what|which|when|where|who)\b", re.I)
_THIS_PAPER = re.compile(r"\b(?:this|that|the current|the open|the selected)\s+(?:paper|article|pdf|document|one)\b"
                         r"|\b(?:in|does|do|did|is|was) it\b|\bits\b|\bthey\b|\bthe authors\b|\bhere\b", re.I)
SIMPLE_WORDS = 8


def is_complex(message: str) -> bool:
    """Comparison / survey / multi-part wording."""
    return bool(_COMPLEX.search(message) or _MULTI.search(message))


def citation_of(message: str, ctx: DispatchContext) -> int | None | str:
    """The draft citation number the message refers to; "ambiguous" when it points at one without a number."""
    m = _CITE_NUM.search(message)
    if m:
        return int(m.group("a") or m.group("b"))
    m = _CITE_ORD.search(message)
    if m:
        word = m.group("ord").lower()
        return len(ctx.citations) if word == "last" else ORDINALS[word]
    if _CITE_DEICTIC.search(message):
        return ctx.citations[0].n if len(ctx.citations) == 1 else "ambiguous"
    return None


def route_question(message: str, ctx: DispatchContext, scores: IntentScores | None, confidence: float,
                   stage: str) -> Decision:
    """An answer decision for a question (or a clarify when it points at nothing that exists)."""
    q = slots.question(message)
    cited = citation_of(message, ctx)
    if cited is not None and ctx.citations:
        if cited == "ambiguous":
            nums = ", ".join(f"[{c.n}]" for c in ctx.citations[:8])
            return _clarify(f"Which citation do you mean: {nums}?", "the question points at a citation "
                            "but the draft has several", confidence)
        match = [c for c in ctx.citations if c.n == cited]
        if not match:
            return _clarify(f"The draft has no citation [{cited}]; its citations are "
                            f"[1]-[{max(c.n for c in ctx.citations)}]. Which one?", "no such citation", confidence)
        c = match[0]
        scope = {"citation": c.n, "paper_ids": [c.paper_id], "page": c.page,
                 **({"chunk_id": c.chunk_id} if c.chunk_id is not None else {})}
        return Decision("answer", f"sem-search {q}", "citation", max(confidence, 0.9),
                        f"asks about citation [{c.n}] of the {ctx.draft_kind} draft ({c.title or c.paper_id}"
                        f"{f', page {c.page}' if c.page else ''})", scope=scope, stage="rule")
    if cited is not None and not ctx.citations:
        return _clarify("There is no draft with citations open. Which paper is the question about?",
                        "the question points at a citation, but no draft cites anything", confidence)
    named = resolve.named_paper(message, ctx, allow_deictic=False)
    if named is None and _THIS_PAPER.search(message):
        pid = resolve.current_paper(ctx)
        if pid:
            named = resolve.Named(pid, pid, "deictic")
    if named is not None and not _COMPLEX.search(message):
        title = ctx.paper_title(named.paper_id)
        how = {"ordinal": f"result {named.ref}", "id": "its id", "title": "its title",
               "deictic": "the paper open or selected now"}[named.how]
        return Decision("answer", f"sem-search {q}", "direct-paper", max(confidence, 0.85),
                        f"names one paper by {how}: {title or named.paper_id}",
                        scope={"paper_ids": [named.paper_id]}, stage="rule" if stage == "rule" else stage)
    words = len(re.findall(r"\w+", message))
    if _COMPLEX.search(message) or _MULTI.search(message):
        return Decision("answer", f"research {q}", "complex", max(confidence, 0.8),
                        "a comparison, survey or multi-part question: multi-step research", stage=stage)
    if words <= SIMPLE_WORDS:
        return Decision("answer", f"sem-search {q}", "simple", max(confidence, 0.8),
                        f"a short factual question ({words} words): one hybrid search and a cited answer",
                        stage=stage)
    if scores is not None and scores.score("ask-complex") > scores.score("ask-simple") + 0.03:
        return Decision("answer", f"research {q}", "complex", confidence,
                        f"a longer question ({words} words) nearest to multi-step research exemplars",
                        stage="exemplar")
    if words > 16:
        return Decision("answer", f"research {q}", "complex", confidence,
                        f"a long question ({words} words): multi-step research", stage=stage)
    return Decision("answer", f"sem-search {q}", "simple", confidence,
                    f"a factual question ({words} words): one hybrid search and a cited answer", stage=stage)


def _clarify(question: str, reason: str, confidence: float) -> Decision:
    return Decision("clarify", None, None, min(confidence, 0.5) if confidence else 0.4, reason,
                    question=question, stage="rule")
