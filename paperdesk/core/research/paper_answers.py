"""A sub-answer from every paper that has findings on it: one short answer per paper, then joined.

One answer written from passages of several papers tends to follow the first
paper and drop the rest, so a report on "how do A and B do X" said only how A
does. Here the answer step's passages are grouped by paper: each paper whose
closest passage is nearly as close to the sub-question as the closest of all
(SPREAD_COSINE) gives its own closest passages, and the writer answers from
each paper's passages apart. The parts are joined into one answer, their
source numbers shifted so that each [n] still points at its passage. A paper
whose part held no supported sentence is named, so the report says where it
found nothing rather than staying silent; and where a paper's generated part held
less than QUOTE_BELOW supported sentences, that paper's own sentence closest to
the sub-question (one the part does not already say) is quoted, cited, after a
lead that says so: nothing generated, so nothing invented. A part's sentence that uses a word of
the question that only another part's paper uses (a name of the other paper's
subject) is dropped: it would credit this paper with the other one's finding.
"""

from __future__ import annotations

from typing import Any

import numpy as np

import re

from paperdesk.core.agents.answer_result import source
from paperdesk.core.agents.attribution import SOURCE_REF, extract, split_sentences
from paperdesk.core.library.library import Hit, Library

SPREAD_COSINE = 0.1  # a paper whose closest passage is this near the closest of all gives passages
MAX_PAPERS = 3  # papers answered apart in one sub-answer (each is one more model call)
PER_PAPER = 3  # passages each paper's part is written from
QUOTE_BELOW = 2  # a part with fewer supported sentences than this also quotes its paper's closest sentence
_WORD = re.compile(r"[a-z][a-z0-9]*")
NAMED_OFTEN = 5  # uses of a word in a paper that make it a name the paper is about


def named_in_library(library: Library, question: str) -> set[str]:
    """Ids of the library's papers whose short title (the title before its colon, 3 to 40 characters) the
    question names, as words of their own."""
    asked = " ".join(question.lower().replace("\u2019", "'").split())
    named = set()
    for paper in library.store.list_papers():
        short = (paper.title or "").split(":", 1)[0].strip().lower()
        if 3 <= len(short) <= 40 and re.search(rf"(?<![a-z0-9]){re.escape(short)}(?![a-z0-9])", asked):
            named.add(paper.id)
    return named


def ranked(library: Library, question: str, hits: list[Hit]) -> tuple[list[Hit], np.ndarray]:
    """The hits (one per chunk, those with a stored vector), closest to the question first, and their cosines."""
    unique = list({h.chunk_id: h for h in hits}.values())
    vectors = library.store.embeddings_by_ids([h.chunk_id for h in unique])
    unique = [h for h in unique if h.chunk_id in vectors]
    if not unique:
        return [], np.zeros(0)
    sims = np.stack([vectors[h.chunk_id] for h in unique]) @ library.embedder.encode_query(question)
    order = np.argsort(-sims)
    return [unique[i] for i in order], sims[order]


def fitting_papers(hits: list[Hit], sims: np.ndarray) -> list[str]:
    """Papers whose closest hit is within SPREAD_COSINE of the closest of all, closest first."""
    papers: list[str] = []
    for hit, sim in zip(hits, sims):
        if hit.paper_id not in papers and sim >= sims[0] - SPREAD_COSINE:
            papers.append(hit.paper_id)
    return papers


def groups(library: Library, question: str, hits: list[Hit], k: int, named: set[str] = frozenset()  # type: ignore[assignment]
           ) -> list[list[Hit]]:
    """The passages to answer from: one group per fitting paper (its PER_PAPER closest) when two or more
    papers fit, else one group of the k closest. Papers the question names (`named`) come first."""
    order, sims = ranked(library, question, hits)
    if not order:
        return []
    fitting = fitting_papers(order, sims)
    first = [p for p in dict.fromkeys(h.paper_id for h in order) if p in named]
    papers = (first + [p for p in fitting if p not in first])[:MAX_PAPERS]
    if len(papers) < 2:
        return [order[:k]]
    return [[h for h in order if h.paper_id == paper][:PER_PAPER] for paper in papers]


def _terms(text: str) -> set[str]:
    return {w for w in _WORD.findall(text.lower()) if len(w) >= 3}


def paper_text(library: Library, paper_id: str) -> str:
    """All of a paper's pages, as one text."""
    paper = library.store.get_paper(paper_id)
    return " ".join(library.store.page_text(paper_id, n) or "" for n in range(1, (paper.page_count or 0) + 1)) \
        if paper else ""


def foreign_terms(question: str, own: list[str], others: list[str]) -> set[str]:
    """The question's words that another part's paper uses and this part's paper never does (`own`,
    `others`: the papers' texts): in a sentence written from this paper's passages, such a word takes
    another paper's subject for this one's."""
    mine = set().union(*(_terms(t) for t in own)) if own else set()
    counts: dict[str, int] = {}
    for text in others:
        for w in _WORD.findall(text.lower()):
            counts[w] = counts.get(w, 0) + 1
    return {w for w in _terms(question) if counts.get(w, 0) >= NAMED_OFTEN and w not in mine}


def drop_foreign(text: str, terms: set[str]) -> tuple[str, list[str]]:
    """The text without its sentences that use one of `terms`; and those sentences."""
    if not terms:
        return text, []
    kept, dropped = [], []
    for sentence in split_sentences(text):
        (dropped if _terms(sentence) & terms else kept).append(sentence)
    return " ".join(kept), dropped


def scoped(question: str, hit: Hit, foreign: set[str] = frozenset()) -> str:  # type: ignore[assignment]
    """The sub-question as one paper's part asks it: without the words only the other parts' papers use
    (with the "and" or comma that joined them), and the paper named, so its answer speaks of that paper."""
    asked = question.rstrip()
    for term in sorted(foreign, key=len, reverse=True):
        word = rf"\b{re.escape(term)}\b"
        asked = re.sub(rf"{word}\s*(?:,\s*and\s+|,\s*or\s+|,\s*|\s+and\s+|\s+or\s+)|"
                       rf"(?:\s*,\s*|\s+and\s+|\s+or\s+){word}", " ", asked, count=1, flags=re.I)
    asked = " ".join(asked.split())
    short = (hit.title or "").split(":", 1)[0].strip()
    label = short if 2 <= len(short) <= 60 else "this paper"
    return f"{asked} (In {label}.)"


def _label(hit: Hit) -> str:
    head = (hit.title or "").split(":", 1)[0].strip()
    return head if 3 <= len(head) <= 60 else f'"{(hit.title or hit.paper_id).strip()}"'


def quoted_part(library: Library, question: str, hits: list[Hit], said: str = "") -> tuple[str, list[dict[str, Any]]]:
    """A paper's sentence closest to the question that `said` (the part's generated text) does not already
    say, cited (local numbers), after a lead that says it is the paper's own; ("", []) when there is none."""
    chunks = library.store.chunks_by_ids([h.chunk_id for h in hits])
    texts = [" ".join(chunks[h.chunk_id].text.split()) if h.chunk_id in chunks else "" for h in hits]
    known = _terms(said)
    for quote in split_sentences(extract(library.embedder.encode_query(question), texts, library.embedder.encode,
                                         limit=3)):
        words = _terms(SOURCE_REF.sub(" ", quote))
        if words and len(words & known) / len(words) > 0.6:
            continue  # the generated sentence already says it
        used = sorted({int(m.group(1)) for m in SOURCE_REF.finditer(quote) if 1 <= int(m.group(1)) <= len(hits)})
        if used:
            return f"{_label(hits[0])}, in its own words: {quote}", [source(n, hits[n - 1]) for n in used]
    return "", []


def join(parts: list[tuple[list[Hit], Any]], named: set[str] = frozenset()  # type: ignore[assignment]
         ) -> tuple[str, list[dict[str, Any]], list[Hit], list[str]]:
    """(text, citations, hits, titles of named papers with nothing supported) of the parts joined: each
    part's [n] shifted past the earlier parts' passages. A part with no supported sentence adds no text;
    when its paper is one the question names (`named`, paper ids), its title is listed."""
    texts, citations, hits, empty = [], [], [], []
    for part_hits, result in parts:
        offset = len(hits)
        hits += part_hits
        if result.not_found or not result.citations:
            if part_hits[0].paper_id in named:
                empty.append(part_hits[0].title or part_hits[0].paper_id)
            continue
        texts.append(SOURCE_REF.sub(lambda m: f" [{int(m.group(1)) + offset}]", result.text).strip())
        citations += [{**c, "n": int(c["n"]) + offset} for c in result.citations]
    return " ".join(texts), citations, hits, empty
