"""Resolving what a message names: result ordinals, page numbers, paper ids, titles, "this paper".

Pure functions over a DispatchContext; no models. Each returns None when the
message names nothing of that kind, so callers can tell "not mentioned"
from "mentioned but unknown".
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from paperdesk.core.text.citation_refs import ORDINALS
from paperdesk.core.dispatch.types import DispatchContext, PaperRef
from paperdesk.core.ids import is_local_id, looks_like_arxiv

NUMBERS = {"one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8, "nine": 9,
           "ten": 10}
_ORD_WORDS = "|".join(sorted(ORDINALS, key=len, reverse=True))
# "the second one", "2nd paper", "the last result", "number 3", "#3", "result 3", "paper no. 3"
_ORDINAL_RE = re.compile(rf"\b(?:the\s+)?(?P<ord>{_ORD_WORDS}|last)\b(?!\s+page)(?:\s+(?:one|paper|result|hit|item|entry))?",
                         re.I)
_NUMBERED_RE = re.compile(r"(?:\b(?:number|no\.?|result|paper|item|hit|entry)\s*#?\s*|#)(?P<n>\d{1,3})\b"
                          r"(?!\s*(?:papers|results))", re.I)
# "number three", "result two" ("no one" is not a number: "no" is left out here)
_NUMBER_WORD_RE = re.compile(r"\b(?:number|result|paper|item|hit|entry)\s+(?P<w>" + "|".join(NUMBERS) + r")\b", re.I)
_PAGE_RE = re.compile(r"\b(?:page|p\.|pg\.?|p)\s*(?P<n>\d{1,4})\b", re.I)
_ORD_PAGE_RE = re.compile(rf"\b(?:the\s+)?(?P<ord>{_ORD_WORDS}|last)\s+page\b", re.I)
_ID_RE = re.compile(r"(?:arxiv:)?\b(?:\d{4}\.\d{4,5}(?:v\d+)?|[a-z-]+(?:\.[A-Z]{2})?/\d{7}(?:v\d+)?|local-[0-9a-f]{12})\b",
                    re.I)
_DEICTIC_RE = re.compile(r"\b(?:that|this|the same|the current|the open|the selected)\s+(?:one|paper|article|pdf|"
                         r"document|result)\b|\bit\b|\bthat one\b", re.I)
_STOP = set("""a an the of for and or in on to with by from at as is are be this that these those paper papers
its it about using via towards toward into over under new""".split())


@dataclass(frozen=True)
class Named:
    """A paper the message names and how sure that is."""

    ref: str  # a 1-based result number as text, or a paper id: what a command takes
    paper_id: str
    how: str  # "ordinal", "id", "title", "deictic"


def ordinal(message: str, ctx: DispatchContext) -> int | None:
    """The 1-based result number the message points at ("the second one", "#3", "number three", "the last")."""
    m = _NUMBERED_RE.search(message)
    if m:
        return int(m.group("n"))
    m = _NUMBER_WORD_RE.search(message)
    if m:
        return NUMBERS[m.group("w").lower()]
    for m in _ORDINAL_RE.finditer(message):
        word = m.group("ord").lower()
        if word == "last":
            if ctx.results:
                return len(ctx.results)
            continue
        # "first" in "first, find papers" is not a pick; require a noun-ish follower or the article
        return ORDINALS[word]
    return None


def page(message: str, ctx: DispatchContext | None = None) -> int | None:
    """A page number ("page 7", "p. 7", "the third page")."""
    m = _PAGE_RE.search(message)
    if m:
        return int(m.group("n"))
    m = _ORD_PAGE_RE.search(message)
    if m:
        word = m.group("ord").lower()
        return None if word == "last" else ORDINALS[word]
    return None


def paper_ids(message: str) -> list[str]:
    """arXiv or library ids written in the message, as written (arXiv: prefix dropped)."""
    out = []
    for m in _ID_RE.finditer(message):
        text = m.group(0)
        text = text[6:] if text.lower().startswith("arxiv:") else text
        if looks_like_arxiv(text) or is_local_id(text):
            out.append(text)
    return out


def _words(text: str) -> list[str]:
    return re.findall(r"[a-z0-9][a-z0-9-]*", text.lower())


def _short_name(title: str) -> str | None:
    """"CiteSee" of "CiteSee: Augmenting ..."; only short names count (at most 3 words)."""
    head, sep, _ = title.partition(":")
    if sep and 1 <= len(head.split()) <= 3:
        return head.strip().lower()
    return None


def title_match(message: str, papers: list[PaperRef]) -> PaperRef | None:
    """The one paper whose title the message names, or None (none, or several equally)."""
    text = " ".join(_words(message))
    words = set(text.split())
    best: list[tuple[float, PaperRef]] = []
    for paper in papers:
        if not paper.title:
            continue
        score = 0.0
        short = _short_name(paper.title)
        if short and re.search(rf"\b{re.escape(' '.join(_words(short)))}\b", text):
            score = 3.0
        content = [w for w in _words(paper.title) if w not in _STOP and len(w) > 2]
        if content:
            hits = sum(1 for w in set(content) if w in words)
            if hits >= 3 and hits / len(set(content)) >= 0.5:
                score = max(score, 2.0 + hits / len(set(content)))
        if score:
            best.append((score, paper))
    if not best:
        return None
    best.sort(key=lambda s: -s[0])
    if len(best) > 1 and best[0][0] == best[1][0] and best[0][1].id != best[1][1].id:
        return None
    return best[0][1]


def deictic(message: str) -> bool:
    """Does the message point at a paper without naming it ("that one", "this paper", "it")?"""
    return bool(_DEICTIC_RE.search(message))


def current_paper(ctx: DispatchContext) -> str | None:
    """The paper "this one" means: the one open in the reader, else the selected one, else a sole result."""
    if ctx.reader:
        return ctx.reader[0]
    if ctx.selected:
        return ctx.selected.id
    if len(ctx.results) == 1:
        return ctx.results[0].id
    return None


def named_paper(message: str, ctx: DispatchContext, allow_deictic: bool = True) -> Named | None:
    """The paper the message names, by ordinal, id, title or (optionally) "this/that one"."""
    ids = paper_ids(message)
    if ids:
        pid = ids[0]
        for n, r in enumerate(ctx.results, start=1):
            if r.id == pid or r.id.split("v")[0] == pid.split("v")[0]:
                return Named(pid, r.id, "id")
        return Named(pid, pid, "id")
    n = ordinal(message, ctx)
    if n is not None and 1 <= n <= len(ctx.results):
        return Named(str(n), ctx.results[n - 1].id, "ordinal")
    pool = list(ctx.results) + [p for p in ctx.library if p.id not in {r.id for r in ctx.results}]
    hit = title_match(message, pool)
    if hit is not None:
        for n, r in enumerate(ctx.results, start=1):
            if r.id == hit.id:
                return Named(str(n), r.id, "title")
        return Named(hit.id, hit.id, "title")
    if allow_deictic and deictic(message):
        pid = current_paper(ctx)
        if pid:
            return Named(pid, pid, "deictic")
    return None


def out_of_range_ordinal(message: str, ctx: DispatchContext) -> int | None:
    """An ordinal that points past the results (so the reply can say the range)."""
    n = ordinal(message, ctx)
    if n is not None and not 1 <= n <= len(ctx.results):
        return n
    return None
