"""The teacher: answers from the paper's own passages with [p. N] citations that grounding checked.

Sources, in order: hybrid search inside the paper (plus the best passage of
the section the question is about), then at most one passage from another
library paper, one memory observation (cited as its original paper and page),
and one arXiv abstract when online and the paper alone answers weakly. The
model writes with numbered sources; `attribution.ground` keeps a [n] only
where the sentence is close to source n (and attaches one where it is), then
[n] becomes [p. N] / [ID, p. N] / [arXiv:ID] and `check_citations` verifies
the page numbers against the paper.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any, Callable

import numpy as np

from paperdesk.core.agents.evidence import about_citations, is_boilerplate
from paperdesk.core.agents.answer import FALLBACK_NOTE, LEAD, SOURCE_WORDS, STOPS, _after_lead, relevant
from paperdesk.core.agents.attribution import (
    SOURCE_REF, drop_copied, extract, ground, split_sentences, strip_echo, trim_loops, usable)
from paperdesk.core.agents.citations import check_citations
from paperdesk.core.agents.summarizer import drop_repeats, make_request
from paperdesk.core.cancel import CancelToken
from paperdesk.core.discussion.outline import Outline
from paperdesk.core.discussion.student import Topic
from paperdesk.core.errors import CancelledError, PaperdeskError
from paperdesk.core.library.library import Library
from paperdesk.core.llm.backend import Backend, generate
from paperdesk.core.prompts import render, template as template_text

OTHER_PAPER_MIN = 0.45  # cosine for another library paper's passage to be worth citing
WEAK_PAPER = 0.5  # below this best in-paper cosine, arXiv abstracts are consulted (when online)
ANY_CITE = re.compile(r"\[(?:p{1,2}\.\s*\d|[^\]]+, p\. \d|arXiv:)")
QUOTE_LEAD = "In the paper's words:"


def sentences(text: str) -> list[str]:
    """Sentences, without splitting inside a bracketed citation like [p. 4]."""
    masked = re.sub(r"\[[^\]\n]{0,40}\]", lambda m: m.group(0).replace(" ", "\x01"), text)
    return [x.replace("\x01", " ") for x in split_sentences(masked)]


@dataclass
class Source:
    kind: str  # paper, library, memory, arxiv
    text: str
    paper_id: str
    title: str
    page: int | None = None
    section: str = ""
    chunk_id: int | None = None
    vector: np.ndarray | None = None

    def label(self, own_paper: str) -> str:
        if self.kind == "arxiv":
            return f"[arXiv:{self.paper_id}]"
        if self.paper_id == own_paper:
            return f"[p. {self.page}]"
        return f"[{self.paper_id}, p. {self.page}]"

    def to_json(self) -> dict[str, Any]:
        return {"kind": self.kind, "paper_id": self.paper_id, "title": self.title, "page": self.page,
                "section": self.section, "quote": " ".join(self.text.split()[:40])}


@dataclass
class TeacherAnswer:
    text: str
    citations: list[dict[str, Any]]  # the sources the text cites
    sources: list[Source]
    cited_share: float  # share of the answer's sentences that carry a citation
    cancelled: bool = False
    fallback: bool = False
    notes: list[str] = field(default_factory=list)
    own_paper: str = ""

    @property
    def sections(self) -> list[str]:
        own = [c["section"] for c in self.citations if c["paper_id"] == self.own_paper] or \
              [s.section for s in self.sources if s.kind == "paper"][:1]
        return list(dict.fromkeys(s for s in own if s))

    @property
    def pages(self) -> list[int]:
        """Pages of the discussed paper the answer cites (its passages, or memory facts from its pages)."""
        return sorted({c["page"] for c in self.citations if c["paper_id"] == self.own_paper and c["page"]})

    @property
    def literature(self) -> list[str]:
        return list(dict.fromkeys(c["paper_id"] if c["kind"] != "arxiv" else f"arXiv:{c['paper_id']}"
                                  for c in self.citations if c["kind"] in ("library", "arxiv", "memory")
                                  and c["paper_id"] != self.own_paper))


def cited_share(text: str) -> float:
    parts = sentences(text)
    return sum(1 for s in parts if ANY_CITE.search(s)) / len(parts) if parts else 0.0


class Teacher:
    """Answers one question per turn. `k` and `diversify` follow the observer's insights."""

    def __init__(self, library: Library, backend: Backend, outline: Outline, memory=None, arxiv=None,  # type: ignore[no-untyped-def]
                 answer_tokens: int = 120, state: dict[str, Any] | None = None) -> None:
        self.library = library
        self.backend = backend
        self.outline = outline
        self.memory = memory
        self.arxiv = arxiv
        self.answer_tokens = answer_tokens
        state = state or {}
        self.k = int(state.get("k", 3))
        self.diversify = bool(state.get("diversify", False))
        self.min_share = float(state.get("min_share", 0.01))  # below this cited share a quote is appended
        self.used_chunks: list[int] = list(state.get("used_chunks", []))
        self._query: tuple[str, np.ndarray] | None = None  # the turn's question, encoded once for our own use

    def state(self) -> dict[str, Any]:
        return {"k": self.k, "diversify": self.diversify, "min_share": self.min_share,
                "used_chunks": self.used_chunks[-12:]}

    def take_insight(self, insight: dict[str, Any]) -> None:
        if insight.get("kind") == "unsupported":
            self.min_share = 0.5
        elif insight.get("kind") == "narrow":
            self.diversify = True

    def answer(self, question: str, topic: Topic, discussion_id: int | None = None,
               on_token: Callable[[str], None] | None = None, cancel: CancelToken | None = None) -> TeacherAnswer:
        paper_id = self.outline.paper_id
        sources = self.gather(question, topic, discussion_id, cancel)
        if not sources:
            text = "The paper has no passage on this question."
            if on_token is not None:
                on_token(text)
            return TeacherAnswer(text, [], [], 0.0, own_paper=paper_id)
        passages = [" ".join(s.text.split()[:SOURCE_WORDS]) for s in sources]
        listing = "\n".join(f"Source {n} ({_where(s, paper_id)}): {p}" for n, (s, p) in enumerate(zip(sources, passages), 1))
        lead = "" if getattr(self.backend, "chat_template", None) else LEAD
        prompt = render("answer", sources=listing, question=question).rstrip()
        if lead:
            prompt, on_token = f"{prompt} {lead}", _after_lead(lead, on_token)
        result = generate(self.backend, make_request(self.backend, prompt, max_tokens=self.answer_tokens, stop=STOPS,
                                                     temperature=0.2, seed=1, repeat_penalty=1.15),
                          on_token=on_token, cancel=cancel)
        if result.cancelled:
            return TeacherAnswer(result.text, [], sources, 0.0, cancelled=True, own_paper=paper_id)
        generated = drop_copied(trim_loops(strip_echo(drop_repeats(result.text))), template_text("answer"))
        encode = self.library.embedder.encode
        matrix = np.stack([self._vector(s) for s in sources])
        fallback = not usable(generated)
        if fallback:
            quoted = extract(self._vector_of(question), passages, encode)
            numbered = f"{FALLBACK_NOTE} {quoted}" if quoted else "The paper has no passage on this question."
        else:
            numbered = ground((f"{lead} {generated.lstrip()}" if lead else generated).strip(), matrix, encode,
                              passages).text
        used = sorted({int(m.group(1)) for m in SOURCE_REF.finditer(numbered) if 1 <= int(m.group(1)) <= len(sources)})
        text = SOURCE_REF.sub(lambda m: _relabel(m, sources, paper_id), numbered)
        pages = {p for s in sources if s.kind in ("paper", "memory") and s.paper_id == paper_id and s.page
                 for p in [s.page]}
        text = check_citations(text, max(self.outline_pages(), 1), pages).text.strip()
        if not fallback and cited_share(text) < self.min_share:
            # the model's sentences are not close to any passage: add the paper's own closest sentence, cited
            own = [i for i, src in enumerate(sources) if src.kind == "paper"]
            quote = extract(self._vector_of(question), [passages[i] for i in own], encode,
                            limit=1) if own else ""
            marks = list(SOURCE_REF.finditer(quote))  # the last [n] is extract's; earlier ones are the paper's own
            if marks and 1 <= int(marks[-1].group(1)) <= len(own):
                n = own[int(marks[-1].group(1)) - 1] + 1
                used = sorted({*used, n})
                text = f"{text} {QUOTE_LEAD} {SOURCE_REF.sub('', quote).rstrip()}"
                text = re.sub(r"([.!?]?)$", lambda e: f" {sources[n - 1].label(paper_id)}{e.group(1) or '.'}", text, 1)
        self.used_chunks.extend(s.chunk_id for s in sources if s.chunk_id is not None and s.kind == "paper")
        citations = [{**sources[n - 1].to_json(), "label": sources[n - 1].label(paper_id)} for n in used]
        return TeacherAnswer(text, citations, sources, cited_share(text), fallback=fallback, own_paper=paper_id)

    # -- sources --------------------------------------------------------------------------

    def gather(self, question: str, topic: Topic, discussion_id: int | None = None,
               cancel: CancelToken | None = None) -> list[Source]:
        """The passages the answer may use, own paper first."""
        paper_id = self.outline.paper_id
        hits = [h for h in relevant(self.library.search(question, k=self.k + 3, papers=[paper_id]))
                if _evidence(question, h.section, h.snippet)]  # never the reference list or front matter
        if self.diversify:  # the observer saw the same pages again and again
            hits = [h for h in hits if h.chunk_id not in self.used_chunks[-6:]] or hits
        ids = [h.chunk_id for h in hits[: self.k]]
        section = self.outline.section_of(topic.section or topic.target)
        if (section is not None and _evidence(question, section.heading, "")
                and not any(h.section == section.heading for h in hits[: self.k])):
            ids.insert(0, self._best_in_section(question, section.chunk_ids))
        ids = list(dict.fromkeys(ids))[: self.k + 1]
        chunks = self.library.store.chunks_by_ids(ids)
        sources = [Source("paper", chunks[i].text, paper_id, self.outline.title, chunks[i].page_start,
                          chunks[i].section, i) for i in ids if i in chunks]
        best = max((h.vector_score or 0.0 for h in hits), default=0.0)
        sources += self._other_paper(question)
        sources += self._memory(question, discussion_id)
        if self.arxiv is not None and best < WEAK_PAPER:
            sources += self._arxiv(question, cancel)
        return sources

    def _best_in_section(self, question: str, chunk_ids: list[int]) -> int:
        vectors = self.library.store.embeddings_by_ids(chunk_ids)
        q = self._vector_of(question)
        return max(chunk_ids, key=lambda i: float(vectors[i] @ q) if i in vectors else -1.0)

    def _other_paper(self, question: str) -> list[Source]:
        for h in self.library.search(question, k=5):
            if (h.paper_id != self.outline.paper_id and (h.vector_score or 0.0) >= OTHER_PAPER_MIN
                    and _evidence(question, h.section, h.snippet)):
                chunk = self.library.store.chunks_by_ids([h.chunk_id])[h.chunk_id]
                return [Source("library", chunk.text, h.paper_id, h.title, h.page_start, h.section, h.chunk_id)]
        return []

    def _memory(self, question: str, discussion_id: int | None) -> list[Source]:
        """One fact earlier discussions or reading stored, cited as its paper and page (never as memory)."""
        if self.memory is None:
            return []
        for entity in self.memory.search_nodes(question, k=3).entities:
            for o in entity.observations:
                # only facts taken from a paper's page: an earlier answer is model text, not a source
                if o.paper_id and o.page and o.discussion_id is None and len(o.text.split()) >= 6:
                    paper = self.library.store.get_paper(o.paper_id)
                    if paper is None:  # a fact about a paper no longer in this library: nothing to cite
                        continue
                    # the paper's own title: the entity's name is a term, and the prompt shows this as a title
                    return [Source("memory", o.text, o.paper_id, paper.title, o.page)]
        return []

    def _arxiv(self, question: str, cancel: CancelToken | None) -> list[Source]:
        try:
            found = self.arxiv.find(question, max_results=2, cancel=cancel)
        except CancelledError:
            raise
        except PaperdeskError:
            self.arxiv = None  # offline or unreachable: stop asking for the rest of the discussion
            return []
        return [Source("arxiv", p.abstract, p.short_id, p.title) for p in found[:1] if p.abstract]

    def _vector_of(self, question: str) -> np.ndarray:
        cached = self._query
        if cached is None or cached[0] != question:
            self._query = cached = (question, self.library.embedder.encode_query(question))
        return cached[1]

    def _vector(self, source: Source) -> np.ndarray:
        if source.vector is None:
            stored = self.library.store.embeddings_by_ids([source.chunk_id]) if source.chunk_id is not None else {}
            source.vector = stored.get(source.chunk_id) if stored else None
            if source.vector is None:
                source.vector = self.library.embedder.encode([" ".join(source.text.split()[:SOURCE_WORDS])])[0]
        return source.vector

    def outline_pages(self) -> int:
        paper = self.library.store.get_paper(self.outline.paper_id)
        return paper.page_count if paper else 0


def _evidence(question: str, section: str, text: str) -> bool:
    """A passage the teacher may answer from: not boilerplate, unless the question is about citations."""
    return about_citations(question) or not is_boilerplate(section, text)


def _where(source: Source, own: str) -> str:
    if source.kind == "arxiv":
        return f"arXiv {source.paper_id}"
    title = source.title.split(":", 1)[0][:60]
    return f"{title}, page {source.page}" if source.paper_id == own else f"other paper {title}, page {source.page}"


def _relabel(match: re.Match[str], sources: list[Source], own: str) -> str:
    n = int(match.group(1))
    if not 1 <= n <= len(sources):
        return ""
    return " " + sources[n - 1].label(own)
