"""The teacher: answers from the paper's own passages, each sentence kept only when its cited passage supports it.

Sources, in order: the passages of the paper that fit the question (search,
re-ranked; never its reference list, acknowledgements or front matter, unless
the question asks about citations), plus the best passage of the section the
question is about, then at most one passage from another library paper and
one memory fact (only when its paper's page states it; cited as that paper and
page), both only from the discussed paper or a paper the question names
(named_papers.py: another paper's passage that merely fits is never read),
and one arXiv abstract when online and the paper alone answers weakly.
The model writes from the numbered passages (answer_prompt: the answer
prompt per model family); its tokens stream through the summaries' sentence
gate (truthful.py), so each shown sentence is one its passage supports,
cited as the paper and page the passage came from. When none is, the
paper's best passages are read once more (passage_answer.py): a sentence of
theirs that holds the question's words is the answer, quoted and cited with its
page; only when none does is the answer "not found in the paper", with the
paper's closest passage quoted.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from types import SimpleNamespace
from typing import Any, Callable

import numpy as np

from paperdesk.core.agents import answer_prompt
from paperdesk.core.agents.answer import EVIDENCE_WORDS, SOURCE_WORDS, STOPS, relevant
from paperdesk.core.agents.attribution import scaffolding_check, split_sentences
from paperdesk.core.agents.claims import supports
from paperdesk.core.agents.evidence import about_citations, is_boilerplate, select, windows
from paperdesk.core.agents.sentence_stream import SentenceGate, StopToken
from paperdesk.core.cancel import CancelToken
from paperdesk.core.discussion.literature import MOST as MOST_WORKS, References, turn_works
from paperdesk.core.discussion.named_papers import named_papers
from paperdesk.core.discussion.outline import Outline
from paperdesk.core.agents.passage_answer import answering_sentence
from paperdesk.core.discussion.student import Topic
from paperdesk.core.discussion.truthful import SourceGrounder, not_found, quoted_answer
from paperdesk.core.errors import CancelledError, PaperdeskError
from paperdesk.core.library.library import Library
from paperdesk.core.llm.backend import Backend, GenerationRequest, generate
from paperdesk.core.llm.requests import make_request

OTHER_PAPER_MIN = 0.3  # cosine for a passage of a paper the question names to be worth citing
WEAK_PAPER = 0.5  # below this best in-paper cosine, arXiv abstracts are consulted (when online)
ANY_CITE = re.compile(r"\[(?:p{1,2}\.\s*\d|[^\]]+, p\. \d|arXiv:)")


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
    supported: list[str] = field(default_factory=list)  # the sentences their cited passage supports (shown, stored)
    dropped: list[str] = field(default_factory=list)  # the model's sentences no passage supports (never shown)
    not_found: bool = False  # no sentence was supported: the text says so and quotes the closest passage
    works: list[str] = field(default_factory=list)  # what the cited passages cite where they support the text

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
        self._references: dict[str, References] = {}  # paper id -> its reference list, read once

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
        """The model's answer, sentence by sentence as each passes the support check (truthful.py); when none
        does, "not found in the paper" with the paper's closest passage quoted."""
        paper_id = self.outline.paper_id
        sources = self.gather(question, topic, discussion_id, cancel)
        closest_only = not sources  # nothing close enough to answer from: still show the closest passage
        if closest_only:
            sources = self._closest(question)
        if not sources:
            text = "Not found in the paper: it has no passage on this question."
            if on_token is not None:
                on_token(text)
            return TeacherAnswer(text, [], [], 0.0, own_paper=paper_id, not_found=True)
        encode = self.library.embedder.encode
        matrix = np.stack([self._vector(s) for s in sources])
        grounder = SourceGrounder.build(sources, paper_id, self.library.store, matrix, encode)
        if closest_only:
            kept, text = [], ""
        else:
            result = self._write(question, sources, grounder, on_token, cancel)
            if result is None:
                return TeacherAnswer("", [], sources, 0.0, cancelled=True, own_paper=paper_id)
            kept, text = list(grounder.supported), result
        used = list(dict.fromkeys(grounder.used))
        missing = not text
        if missing:  # nothing the model wrote is what a passage says: the paper's own sentence, or not found
            own = [(i, s.text, *grounder.pages[i]) for i, s in enumerate(sources) if s.kind == "paper"]
            held = answering_sentence(question, own, encode)
            if held is not None:
                text, index = quoted_answer(held[0], held[1], own, grounder)
                kept, missing = [text], False
            else:
                text, index = not_found(self._vector_of(question), own, encode, grounder)
            used = [index] if index is not None else []
            if on_token is not None:
                on_token(text)
        self.used_chunks.extend(s.chunk_id for s in sources if s.chunk_id is not None and s.kind == "paper")
        citations = [_cited(sources[i], grounder.labels.get(i) or sources[i].label(paper_id)) for i in used]
        works = self._works([sources[i] for i in used], [text] if missing else kept)
        return TeacherAnswer(text, citations, sources, cited_share(text), own_paper=paper_id,
                             supported=[] if missing else kept, dropped=[d for d, _ in grounder.dropped],
                             not_found=missing, works=works)

    def _write(self, question: str, sources: list[Source], grounder: SourceGrounder,
               on_token: Callable[[str], None] | None, cancel: CancelToken | None) -> str | None:
        """The model's answer from the passages, sentence by sentence as each passes the support check;
        None when cancelled."""
        texts = [s.text for s in sources]
        # One worked turn and plain windows: a discussion's ten turns share the cores, and its page grounding
        # (truthful.py) was measured with these prompts.
        passages = windows(self.library, question, sources, texts, EVIDENCE_WORDS, extras=False)
        shown = [SimpleNamespace(title=_title(s, self.outline.paper_id), page_start=s.page or 1) for s in sources]
        prompt, messages, examples = answer_prompt.build(bool(self.backend.chat_template), shown, passages, question,
                                                         turns=1)
        options = {"max_tokens": self.answer_tokens, "stop": STOPS, "temperature": 0.2, "seed": 1,
                   "repeat_penalty": 1.15}
        request = (GenerationRequest(messages=messages, **options) if messages
                   else make_request(self.backend, prompt, **options))
        grounder.reject = scaffolding_check(examples)  # an echoed prompt line or a copied worked example
        stop = StopToken(cancel) if cancel is not None else StopToken(CancelToken())
        gate = SentenceGate(grounder, on_token or (lambda text: None), stop.cancel)  # type: ignore[arg-type]
        result = generate(self.backend, request, on_token=gate.feed, cancel=stop)
        if cancel is not None and cancel.cancelled:
            return None
        gate.finish(complete=result.finish_reason == "stop")
        return gate.text

    def _closest(self, question: str) -> list[Source]:
        """The paper's passages nearest the question whatever their score (none of them answers it; the
        "not found" answer still shows the closest one), never the reference list or front matter."""
        paper_id = self.outline.paper_id
        hits = self.library.search(question, k=self.k + 6, papers=[paper_id])
        chunks = self.library.store.chunks_by_ids([h.chunk_id for h in hits])
        ids = [h.chunk_id for h in hits if h.chunk_id in chunks
               and not is_boilerplate(chunks[h.chunk_id].section, chunks[h.chunk_id].text)][: self.k]
        return [Source("paper", chunks[i].text, paper_id, self.outline.title, chunks[i].page_start,
                       chunks[i].section, i) for i in ids]

    def _works(self, cited: list[Source], supported: list[str]) -> list[str]:
        """The works the cited passages cite where they support the answer, resolved against their paper's
        reference list (literature.py)."""
        out: list[str] = []
        for source in cited:
            if source.kind == "arxiv":  # an abstract: no reference list to resolve against
                continue
            if source.paper_id not in self._references:
                self._references[source.paper_id] = References.of(self.library.store, source.paper_id)
            out += turn_works([source.text], supported, self._references[source.paper_id])
        return list(dict.fromkeys(out))[:MOST_WORKS]

    # -- sources --------------------------------------------------------------------------

    def gather(self, question: str, topic: Topic, discussion_id: int | None = None,
               cancel: CancelToken | None = None) -> list[Source]:
        """The passages the answer may use, own paper first."""
        paper_id = self.outline.paper_id
        found = relevant(self.library.search(question, k=self.k + 6, papers=[paper_id]))
        if self.diversify:  # the observer saw the same pages again and again
            found = [h for h in found if h.chunk_id not in self.used_chunks[-6:]] or found
        # re-ranked for the question; never the reference list, acknowledgements or front matter (by their text)
        hits, _ = select(self.library, question, found, self.k)
        ids = [h.chunk_id for h in hits]
        section = self.outline.section_of(topic.section or topic.target)
        if (section is not None and _evidence(question, section.heading, "")
                and not any(h.section == section.heading for h in hits)):
            best = self._best_in_section(question, section.chunk_ids)
            if best is not None:
                ids.insert(0, best)
        ids = list(dict.fromkeys(ids))[: self.k + 1]
        chunks = self.library.store.chunks_by_ids(ids)
        sources = [Source("paper", chunks[i].text, paper_id, self.outline.title, chunks[i].page_start,
                          chunks[i].section, i) for i in ids if i in chunks]
        best = max((h.vector_score or 0.0 for h in found), default=0.0)
        named = self._named(question)
        sources += self._other_paper(question, named)
        sources += self._memory(question, named)
        if self.arxiv is not None and best < WEAK_PAPER:
            sources += self._arxiv(question, cancel)
        return sources

    def _best_in_section(self, question: str, chunk_ids: list[int]) -> int | None:
        """The section's passage closest to the question, of those that are not boilerplate."""
        chunks = self.library.store.chunks_by_ids(chunk_ids)
        body = [i for i in chunk_ids if i in chunks and _evidence(question, chunks[i].section, chunks[i].text)]
        if not body:
            return None
        vectors = self.library.store.embeddings_by_ids(body)
        q = self._vector_of(question)
        return max(body, key=lambda i: float(vectors[i] @ q) if i in vectors else -1.0)

    def _named(self, question: str) -> list[str]:
        """The other library papers the question names (by id or title): the only others it may draw on."""
        return named_papers(question, self.library.store.list_papers(), self.outline.paper_id, self.outline.title)

    def _other_paper(self, question: str, named: list[str]) -> list[Source]:
        """The best passage of a paper the question names; none when it names no other paper."""
        if not named:
            return []
        for h in self.library.search(question, k=5, papers=named):
            if h.paper_id in named and (h.vector_score or 0.0) >= OTHER_PAPER_MIN:
                chunk = self.library.store.chunks_by_ids([h.chunk_id]).get(h.chunk_id)
                if chunk is not None and _evidence(question, chunk.section, chunk.text):  # its whole text, not the snippet
                    return [Source("library", chunk.text, h.paper_id, h.title, chunk.page_start, chunk.section,
                                   h.chunk_id)]
        return []

    def _memory(self, question: str, named: list[str]) -> list[Source]:
        """One fact earlier discussions or reading stored, cited as its paper and page (never as memory): a fact
        of the discussed paper, or of a paper the question names."""
        if self.memory is None:
            return []
        allowed = {self.outline.paper_id, *named}
        for entity in self.memory.search_nodes(question, k=3).entities:
            for o in entity.observations:
                # only facts taken from a paper's page: an earlier answer is model text, not a source
                if o.paper_id in allowed and o.page and o.discussion_id is None and len(o.text.split()) >= 6:
                    paper = self.library.store.get_paper(o.paper_id)
                    if paper is None:  # a fact about a paper no longer in this library: nothing to cite
                        continue
                    page = self.library.store.page_text(o.paper_id, o.page) or ""
                    if not supports(o.text, page)[0] or not _evidence(question, "", o.text):
                        continue  # credited to a paper only when its page states it; never a reference entry
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


def _cited(source: Source, label: str) -> dict[str, Any]:
    """A citation of the source: its page is the one the label cites (a passage over a page break is cited
    on the page of the words the answer used, not always its first)."""
    page = re.search(r"pp?\. (\d+)", label)
    return {**source.to_json(), "label": label, **({"page": int(page.group(1))} if page else {})}


def _evidence(question: str, section: str, text: str) -> bool:
    """A passage the teacher may answer from: not boilerplate, unless the question is about citations."""
    return about_citations(question) or not is_boilerplate(section, text)


def _title(source: Source, own: str) -> str:
    """What the prompt calls a source's paper: the discussed paper's title, or another paper marked as such."""
    if source.kind == "arxiv":
        return f"arXiv {source.paper_id} abstract"
    short = answer_prompt.short_title(source.title)
    return short if source.paper_id == own else f"other paper {short}"


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
