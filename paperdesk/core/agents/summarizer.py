"""Paper summaries that fit a small context: map (key points per excerpt) -> reduce (per section).

Map: a handful of representative excerpts (one per body section, references
and front matter skipped) each become bullet notes with page numbers
(summary_map.py: the worked example as a chat turn of its own, copied notes dropped).
Reduce: each summary section (problem, method, results, limitations) is
written from the notes and streamed sentence by sentence, each sentence
shown only once it is grounded in the chunks it was written from
(section_gate.py, sentence_stream.py): page citations are placed by code,
leaks, repeats and unsupported sentences are dropped, and a section left
empty is written again once and else quoted from the paper. Every result is
stored as a revision: draft when finished, interrupted when cancelled. The
revision is stored as soon as the first section is finished (as interrupted)
and grows with each finished section, so a process killed mid-summary keeps
the sections it had written.
"""

from __future__ import annotations

import re
import time
from dataclasses import dataclass, field
from typing import Any, Callable

from paperdesk.core.agents.citations import CITATION, check_citations
from paperdesk.core.agents.claims import SENTENCE_COVER, SENTENCE_WORDS
from paperdesk.core.agents.improve_scope import same_sections, sections_for, unchanged_reason
from paperdesk.core.agents import quality
from paperdesk.core.agents.page_grounding import PageGrounder, page_mark
from paperdesk.core.agents.section_gate import GroundingStats, gated_section
from paperdesk.core.agents.sentence_stream import SentenceGate, StopToken
from paperdesk.core.agents.summary_map import map_notes, map_request
from paperdesk.core.cancel import CancelToken
from paperdesk.core.llm.backend import Backend, generate, generate_all
from paperdesk.core.llm.requests import make_request
from paperdesk.core.progress import Progress, ProgressCallback
from paperdesk.core.prompts import render
from paperdesk.core.db.store import Chunk, Store, SummaryRevision
from paperdesk.core.ingest.tables import is_table_section

SECTIONS = (("problem", "Problem"), ("method", "Method"), ("results", "Results"), ("limitations", "Limitations"))
SKIP_SECTIONS = ("references", "bibliography", "acknowledg", "front matter", "keywords", "author contributions")
MAX_EXCERPTS = 8
# Sections of one summary (or one improve) written a second time when the first attempt left no sentence:
# each retry costs as long as writing a section, so more of them push a summary past its time; a section
# past the budget quotes the paper's own sentences (or, in an improve, keeps its text).
SECTION_RETRIES = 1
EXCERPT_WORDS = 220


@dataclass
class SummaryResult:
    text: str
    revision: SummaryRevision
    citations: list[dict[str, Any]]
    removed_citations: list[int]
    cancelled: bool
    timings: dict[str, float] = field(default_factory=dict)
    grounding: GroundingStats = field(default_factory=GroundingStats)
    unchanged: str = ""  # why `improve` stored no new revision ("" when it did)

    def to_json(self) -> dict[str, Any]:
        return {"text": self.text, "citations": self.citations, "revision": self.revision.revision,
                **({"unchanged": self.unchanged} if self.unchanged else {}),
                "status": self.revision.status, "removed_citations": self.removed_citations,
                "grounding": self.grounding.to_json(),
                "timings": {k: round(v, 3) for k, v in self.timings.items()}}


def pick_excerpts(chunks: list[Chunk], limit: int = MAX_EXCERPTS) -> list[Chunk]:
    """One chunk per body section, in order, at most `limit` spread over the paper."""
    body = [c for c in chunks if not any(s in c.section.lower() for s in SKIP_SECTIONS)
            and not is_table_section(c.section)] or chunks  # a table's rows are evidence, not a section to excerpt
    firsts: list[Chunk] = []
    seen: set[str] = set()
    for chunk in body:
        if chunk.section not in seen:
            seen.add(chunk.section)
            firsts.append(chunk)
    if len(firsts) <= limit:
        return firsts
    step = len(firsts) / limit
    return [firsts[int(i * step)] for i in range(limit)]


def split_sections(markdown: str) -> dict[str, str]:
    """'## Heading' -> body text, for the summary's sections."""
    out: dict[str, str] = {}
    for block in re.split(r"^## ", markdown, flags=re.M)[1:]:
        heading, _, body = block.partition("\n")
        out[heading.strip()] = body.strip()
    return out


def _excerpt(chunk: Chunk) -> str:
    words = chunk.text.split()[:EXCERPT_WORDS]
    return " ".join(words) + f" [p. {chunk.page_start}]"


HEADLINES = 3  # the opening's sentences stating figures that the results section reads first
HEADLINE_QUOTES = 2  # of those, the most a results section quotes when it states none of their figures
_FIGURE = re.compile(r"(?<![\w.,])(?:\d+(?:[.,]\d+)*\s*(?:%|percent\b)|\d+\.\d+(?![\w.])|\d{1,3}(?:,\d{3})+(?![\w.])|"
                     r"\d{3,}(?![\w.,]))")


def figures_of(text: str) -> set[str]:
    """The figures `text` states (a share, a decimal, a number of three digits or more; not a year)."""
    stated = {" ".join(m.group(0).split()) for m in _FIGURE.finditer(CITATION.sub(" ", text))}
    return {f for f in stated if not re.fullmatch(r"(?:19|20)\d\d", f)}


def figure_sentences(chunk: Chunk, limit: int = HEADLINES) -> list[str]:
    """The chunk's sentences that state a figure, in the chunk's order: at most `limit`; a year, a footnote
    mark ("Doe1,2") or a small count is not a figure, and a title block of more than 60 words is not a
    sentence."""
    from paperdesk.core.agents.evidence import evidence_sentences

    out: list[str] = []
    for sentence in evidence_sentences(chunk.text):
        if figures_of(sentence) and 6 <= len(sentence.split()) <= 60:
            out.append(sentence)
        if len(out) == limit:
            break
    return out


def figure_notes(chunk: Chunk, limit: int = HEADLINES) -> list[str]:
    """figure_sentences as notes with their page."""
    pages = (f"p. {chunk.page_start}" if chunk.page_start == chunk.page_end
             else f"pp. {chunk.page_start}-{chunk.page_end}")  # the grounder moves it to the page that holds it
    return [f"- {sentence.rstrip('. ')} [{pages}]." for sentence in figure_sentences(chunk, limit)]


def headline_quotes(body: str, chunk: Chunk, page_of: Callable[[str, Chunk], tuple[int, int]],
                    limit: int = HEADLINE_QUOTES) -> list[str]:
    """Quoted lines ("- “...” [p. N].") of the opening's sentences stating figures that `body` (a written
    results section) states none of: a paper's headline results are its abstract's figures, and a small
    writer given them as notes often leaves them out. At most `limit`, in the paper's order."""
    stated = figures_of(body)
    out: list[str] = []
    for sentence in figure_sentences(chunk):
        if figures_of(sentence) & stated:
            continue
        out.append(f"- “{sentence.rstrip('. ')}” {page_mark(*page_of(sentence, chunk))}.")
        stated |= figures_of(sentence)
        if len(out) == limit:
            break
    return out


class Summarizer:
    def __init__(self, store: Store, backend: Backend, section_tokens: int = 90, map_tokens: int = 64,
                 embedder: Any = None, excerpts: int = MAX_EXCERPTS) -> None:
        self.store = store
        self.backend = backend
        self.section_tokens = section_tokens
        self.map_tokens = map_tokens
        self.excerpts = excerpts  # passages the notes are taken from: each is one model call
        self._embedder = embedder

    @classmethod
    def from_settings(cls, store: Store, backend: Backend, settings: Any, embedder: Any = None) -> "Summarizer":
        """Output lengths and the passages read from the summary.* settings."""
        return cls(store, backend, settings["summary.section_tokens"], settings["summary.map_tokens"], embedder,
                   settings["summary.excerpts"])

    @property
    def embedder(self) -> Any:
        """The sentence embedder grounding uses (loaded once per process, shared with the library)."""
        if self._embedder is None:
            from paperdesk.core.search.embedder import Embedder

            self._embedder = Embedder()
        return self._embedder

    def grounder(self, paper_id: str, chunks: list[Chunk]) -> PageGrounder:
        """Grounding against `chunks` (deduplicated), with their stored vectors (encoded when missing)."""
        import numpy as np

        chunks = list({c.id: c for c in chunks}.values())
        stored = self.store.embeddings_by_ids([c.id for c in chunks])
        missing = [c for c in chunks if c.id not in stored]
        if missing:
            stored.update(zip((c.id for c in missing), self.embedder.encode([c.text for c in missing])))
        vectors = np.stack([stored[c.id] for c in chunks]) if chunks else np.zeros((0, 1), dtype=np.float32)
        paper = self.store.get_paper(paper_id)
        grounder = PageGrounder(chunks, vectors, self.embedder.encode,
                                lambda page: self.store.page_text(paper_id, page) or "",
                                paper.page_count if paper else 0, cover_min=SENTENCE_COVER,
                                words_min=SENTENCE_WORDS)
        grounder.title = paper.title if paper else ""
        return grounder

    def summarize(
        self,
        paper_id: str,
        on_token: Callable[[str], None] | None = None,
        cancel: CancelToken | None = None,
        progress: ProgressCallback | None = None,
        dialogue: str = "",
    ) -> SummaryResult:
        """Summarize a paper section by section; `dialogue` (the optional "User dialogue" block)
        leads each section's prompt, so the words that asked for the summary shape it."""
        paper = self.store.get_paper(paper_id)
        if paper is None:
            from paperdesk.core.errors import UnknownPaperError

            raise UnknownPaperError(f"no paper {paper_id} in the library")
        token = cancel or CancelToken()
        timings: dict[str, float] = {}
        start = time.perf_counter()
        excerpts = pick_excerpts(self.store.chunks_of(paper_id), self.excerpts)
        supported = {p for c in excerpts for p in range(c.page_start, c.page_end + 1)}
        parts = [f"# {paper.title}\n"]
        emit = on_token or (lambda _t: None)
        emit(parts[0])
        stats, used = GroundingStats(), set()
        retries = RetryBudget(SECTION_RETRIES)
        # The problem is written from the opening excerpt, the other sections from the notes on the rest.
        opening_grounder = self.grounder(paper_id, excerpts[:1])
        rest_grounder = self.grounder(paper_id, excerpts[1:] or excerpts[:1])
        # The results also read the opening's sentences that state figures: the abstract is where a paper
        # gives its headline results, which the notes on the other sections' first passages seldom reach.
        headlines = figure_notes(excerpts[0]) if len(excerpts) > 1 else []
        results_grounder = self.grounder(paper_id, excerpts) if headlines else rest_grounder

        def write_section(n: int, section: str, heading: str, notes_text: str) -> None:
            prompt = render("summarize_section", title=paper.title, notes=notes_text, section=section, heading=heading)
            if dialogue.strip():
                prompt = f"{dialogue.strip()}\n\n{prompt}"
            grounder = opening_grounder if n == 1 else results_grounder if section == "results" else rest_grounder
            body = self._section(heading, prompt, "Notes on", n, emit, token, timings, start,
                                 grounder, section, stats, used, progress, retries=retries)
            if section == "results" and headlines and opening is not None and not token.cancelled:
                quoted = headline_quotes(body, opening, grounder.pages_for)
                if quoted:
                    added = "\n" + "\n".join(quoted)
                    emit(added)
                    body += added
                    stats.sentences += len(quoted)
                    stats.cited += len(quoted)
                    used.update(" ".join(quality.words(q)) for q in quoted)
            parts.append(f"\n## {heading}\n{body}\n")
            if not token.cancelled:  # finished: stored now, so that a kill -9 keeps it
                keep("interrupted")
            if progress is not None:
                progress(Progress("reduce", n, len(SECTIONS), "sections"))

        kept: list[SummaryRevision] = []  # the revision the finished sections are stored in, as they finish

        def keep(status: str) -> tuple[Any, SummaryRevision]:
            checked = check_citations("".join(parts), paper.page_count, supported)
            draft_id = self.store.drafts.summary_of(paper_id)
            if kept and draft_id is not None:
                kept[0] = self.store.drafts.rewrite(draft_id, kept[0].revision, checked.text, status)
            else:
                kept[:] = [self.store.add_revision(paper_id, checked.text, status)]
            return checked, kept[0]

        # The problem comes from the opening excerpt alone, so the first words stream within seconds.
        opening = excerpts[0] if excerpts else None
        if opening is not None:
            write_section(1, *SECTIONS[0], _excerpt(opening))
        map_start = time.perf_counter()
        notes: list[str] = []
        # the notes on each passage are independent: written together where the model can (generate_all)
        requests = [map_request(self.backend, _excerpt(chunk), max_tokens=self.map_tokens, stop=["\n\n", "Excerpt:"],
                                temperature=0.2, seed=n) for n, chunk in enumerate(excerpts[1:], start=2)]
        counts = {"read": 0, "written": 0}

        def count(what: str) -> None:
            counts[what] += 1
            if progress is not None:  # the excerpts read so far, and how many of their notes are written
                progress(Progress("map", counts["read"], len(requests), "excerpts",
                                  f"{counts['written']} of {len(requests)} notes written"))

        results = generate_all(self.backend, requests, cancel=token, on_started=lambda _i: count("read"),
                               on_finished=lambda _i, _g: count("written"))
        for chunk, result in zip(excerpts[1:], results):
            if result.cancelled:
                break
            found, echoed = map_notes(result.text, chunk, paper.page_count,
                                      complete=result.finish_reason != "length")
            notes += found
            stats.leaks_removed += echoed
        timings["map_s"] = time.perf_counter() - map_start
        reduce_start = time.perf_counter()
        for n, (section, heading) in enumerate(SECTIONS[1:], start=2):
            if token.cancelled:
                break
            read = (headlines + notes if section == "results" else notes)[:24]
            write_section(n, section, heading, "\n".join(read) or _excerpt(opening) if opening else "")
        timings["reduce_s"] = time.perf_counter() - reduce_start
        timings["total_s"] = time.perf_counter() - start

        checked, revision = keep("interrupted" if token.cancelled else "draft")
        citations = [self._citation(page, excerpts) for page in dict.fromkeys(checked.kept)]
        stats.removed += len(checked.removed)
        return SummaryResult(checked.text, revision, citations, checked.removed, token.cancelled, timings, stats)

    def improve(
        self,
        paper_id: str,
        feedback: str,
        sources: list[Chunk],
        on_token: Callable[[str], None] | None = None,
        cancel: CancelToken | None = None,
        dialogue: str = "",
        progress: ProgressCallback | None = None,
    ) -> SummaryResult:
        """A new revision: the sections the feedback is about rewritten from the current ones, the feedback
        and `sources`; the others kept as they are. A rewrite that does not hold up keeps the section's old
        text, and a revision identical to the current one is not stored (`unchanged` says why).

        `dialogue` is the optional "User dialogue" block, put before each section's prompt."""
        from paperdesk.core.errors import PaperdeskError

        paper = self.store.get_paper(paper_id)
        current = self.store.current_revision(paper_id) if paper else None
        if paper is None or current is None:
            raise PaperdeskError(f"{paper_id} has no summary to improve; summarize it first")
        if not feedback.strip():
            raise PaperdeskError("improve needs feedback, e.g. improve say more about the results")
        token = cancel or CancelToken()
        start = time.perf_counter()
        timings: dict[str, float] = {}
        emit = on_token or (lambda _t: None)
        old_sections = split_sections(current.text)
        source_text = "\n".join(_excerpt(c) for c in sources[:3])
        parts = [f"# {paper.title}\n"]
        emit(parts[0])
        # The same rules as a fresh summary: grounded in the passages shown and the chunks it was written from.
        excerpts = pick_excerpts(self.store.chunks_of(paper_id), self.excerpts)
        grounder = self.grounder(paper_id, list(sources[:3]) + excerpts)
        stats, used = GroundingStats(), set()
        retries = RetryBudget(SECTION_RETRIES)
        targets = sections_for(feedback, [key for key, _ in SECTIONS])
        for n, (section, heading) in enumerate(SECTIONS, start=1):
            old = old_sections.get(heading, "")
            if token.cancelled or (section not in targets and old):
                emit(f"\n## {heading}\n{old}")  # not what the feedback is about: kept as it was
                parts.append(f"\n## {heading}\n{old}\n")
                continue
            prompt = render("improve_section", title=paper.title, sources=source_text, section=section,
                            old=old or "(empty)", feedback=feedback.strip(), heading=heading)
            if dialogue.strip():
                prompt = f"{dialogue.strip()}\n\n{prompt}"
            text = self._section(heading, prompt, "Passages from", n, emit, token, timings, start,
                                 grounder, section, stats, used, progress, keep=old or None, retries=retries)
            parts.append(f"\n## {heading}\n{text or old}\n")
        timings["total_s"] = time.perf_counter() - start
        supported = {p for c in grounder.chunks for p in range(c.page_start, c.page_end + 1)}
        supported |= {int(m.group(1)) for m in CITATION.finditer(current.text)}
        checked = check_citations("".join(parts), paper.page_count, supported)
        chunks = sources + [c for c in self.store.chunks_of(paper_id)]
        citations = [self._citation(page, chunks) for page in dict.fromkeys(checked.kept)]
        stats.removed += len(checked.removed)
        if same_sections(split_sections(checked.text), old_sections) and not token.cancelled:  # nothing new: no revision to store
            reason = unchanged_reason([h for k, h in SECTIONS if k in targets], stats.failures, current.revision)
            return SummaryResult(current.text, current, citations, checked.removed, False, timings, stats,
                                 unchanged=reason)
        revision = self.store.add_revision(paper_id, checked.text, "interrupted" if token.cancelled else "draft")
        return SummaryResult(checked.text, revision, citations, checked.removed, token.cancelled, timings, stats)

    def _section(
        self,
        heading: str,
        prompt: str,
        prompt_start: str,
        seed: int,
        emit: Callable[[str], None],
        token: CancelToken,
        timings: dict[str, float],
        start: float,
        grounder: PageGrounder,
        key: str,
        stats: GroundingStats,
        used: set[str],
        note: ProgressCallback | None = None,
        keep: str | None = None,
        retries: "RetryBudget | None" = None,
    ) -> str:
        """Stream one '## heading' section, sentence by sentence as each passes the gate; return its body."""
        header = f"\n## {heading}\n"
        emit(header)

        def shown(text: str) -> None:
            timings.setdefault("first_token_s", time.perf_counter() - start)
            emit(text)

        def attempt(options: dict[str, Any], gate: SentenceGate) -> bool:
            stop = StopToken(token)
            gate.on_stop = stop.cancel
            result = generate(self.backend, make_request(
                self.backend, prompt, max_tokens=self.section_tokens, stop=["\n#", "\n\n\n", prompt_start],
                temperature=options.get("temperature", 0.3), seed=seed + options.get("seed_offset", 0),
                repeat_penalty=options.get("repeat_penalty")), on_token=gate.feed, cancel=stop)
            gate.finish(complete=result.finish_reason == "stop")
            return token.cancelled

        def status(message: str) -> None:
            if note is not None:
                note(Progress(message, seed, len(SECTIONS), "sections"))

        return gated_section(attempt, grounder, key, heading, stats, shown, used, status, keep,
                             retries.take if retries is not None else lambda: True)

    @staticmethod
    def _citation(page: int, excerpts: list[Chunk]) -> dict[str, Any]:
        source = next(c for c in excerpts if c.page_start <= page <= c.page_end)
        return {"page": page, "chunk_id": source.id, "quote": " ".join(source.text.split()[:30])}


class RetryBudget:
    """The second attempts one summary may still make."""

    def __init__(self, left: int) -> None:
        self.left = left

    def take(self) -> bool:
        """Use one; False when none is left."""
        if self.left <= 0:
            return False
        self.left -= 1
        return True
