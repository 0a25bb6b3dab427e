"""Page citations for summary sentences, placed by code: each sentence against the chunks it came from.

A sentence is supported by a chunk when its embedding is close to the
chunk's, it shares content words with it, and every number, name and DOI it
states is on that chunk or its page, as are most of its content words
(claims.py). A supported sentence gets `[p. N]` (or `[pp. N-M]` when the
words span pages); the model's own page citations stay only when a chunk on
that page supports the sentence. A sentence nothing supports is dropped.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Callable, Sequence

import numpy as np

from paperdesk.core.agents.attribution import KEEP, SUPPORT, shares_words
from paperdesk.core.agents.chunk_pages import split_by_page
from paperdesk.core.agents.citations import CITATION
from paperdesk.core.agents.claims import COVER_MIN, debris, supports
from paperdesk.core.agents.quality import STOPWORDS, split_sentences, words
from paperdesk.core.db.store import Chunk

Encoder = Callable[[Sequence[str]], np.ndarray]
PageText = Callable[[int], str]


@dataclass
class SectionGrounding:
    """One section's text with checked citations, and what the check did."""

    text: str
    sentences: int = 0
    cited: int = 0
    unsupported: int = 0
    removed: list[int] = field(default_factory=list)  # model citations (pages) no source on that page supports
    numbers_flagged: list[str] = field(default_factory=list)  # sentences whose numbers/names the page lacks
    dropped: list[tuple[str, str]] = field(default_factory=list)  # (sentence, why) no source supports

    @property
    def share(self) -> float:
        return self.cited / self.sentences if self.sentences else 1.0


def cite(sentence: str, mark: str) -> str:
    """`mark` before the sentence's final punctuation (or at its end)."""
    sentence = sentence.rstrip()
    match = re.search(r"[.!?]+[\"')\]”]*$", sentence)
    if match:
        return f"{sentence[: match.start()]} {mark}{sentence[match.start():]}"
    return f"{sentence} {mark}"


def page_mark(first: int, last: int) -> str:
    return f"[p. {first}]" if first == last else f"[pp. {first}-{last}]"


def without_title(sentence: str, title: str) -> str:
    """The sentence with the paper's whole title, quoted, said as "the paper" ("The paper \"X\" shows" is "The
    paper shows"): a small model repeats the title its prompt names, and the title's words are no finding."""
    if len(title.split()) < 2:
        return sentence
    quoted = r"[\"“”']" + r"\s+".join(map(re.escape, title.split())) + r"[,.]?[\"“”']"
    said = re.sub(rf"\b(paper|article|study|work)\s*,?\s*{quoted},?", r"\1", sentence, flags=re.I)
    said = re.sub(quoted, "the paper", said, flags=re.I)
    return "The" + said[3:] if said != sentence and said.startswith("the paper") else said


class PageGrounder:
    """Grounds sentences in a fixed set of source chunks (those a section was written from)."""

    def __init__(self, chunks: Sequence[Chunk], vectors: np.ndarray, encode: Encoder, page_text: PageText,
                 page_count: int = 0, cover_min: float = COVER_MIN, words_min: float = 0.0) -> None:
        self.chunks = list(chunks)
        self.cover_min = cover_min  # share of a sentence's content words its chunk must hold
        self.words_min = words_min  # share of all its words its chunk and pages must hold (0: not checked)
        self.page_count = page_count  # citations past it are dropped (0: no limit known)
        self.vectors = vectors
        self.encode = encode
        self._page_text = page_text
        self._pages: dict[int, str] = {}
        self._parts: dict[tuple[int, int, int], dict[int, set[str]]] = {}
        self.title = ""  # the paper's title: a sentence that quotes it whole says "the paper" instead

    def page(self, number: int) -> str:
        if number not in self._pages:
            self._pages[number] = self._page_text(number) or ""
        return self._pages[number]

    def ground(self, text: str) -> SectionGrounding:
        """Check the model's page citations, cite every supported sentence and drop the rest (counted)."""
        lines = [split_sentences(debris(line)) for line in text.splitlines()]
        flat = [s for line in lines for s in line]
        out = SectionGrounding(text)
        done = [self.ground_sentence(s, out) for s in flat]
        rebuilt, k = [], 0
        for line in lines:  # keep the section's lines (bullets stay bullets)
            rebuilt.append(" ".join(d for d in done[k : k + len(line)] if d))
            k += len(line)
        out.text = "\n".join(r for r in rebuilt if r.strip())
        return out

    def ground_sentence(self, sentence: str, out: SectionGrounding) -> str | None:
        """The sentence with its checked page citation, or None when no source chunk supports it.

        Supported: close in meaning to a chunk, sharing content words with it,
        and every number, name and DOI it states on that chunk or its page
        (claims.supports). The model's own citation stays when a chunk on that
        page supports the sentence; otherwise the best supporting chunk's page
        is cited. Whatever no chunk supports is dropped, and `out` says why.
        """
        bare = CITATION.sub("", debris(sentence))
        bare = re.sub(r"\s+([.,;:!?])", r"\1", without_title(bare, self.title)).strip()
        parts = split_sentences(bare)
        if len(parts) > 1:
            # "Foo.[p. 3] Bar." reads as one sentence until its marker is lifted out, and then as two: each
            # is checked (with the model's markers) and cited on its own, so the text's sentences are the
            # sentences counted.
            marks = " ".join(m.group(0) for m in CITATION.finditer(sentence))
            done = [self.ground_sentence(f"{part} {marks}".strip(), out) for part in parts]
            kept = [d for d in done if d]
            return " ".join(kept) if kept else None
        out.sentences += 1
        if not words(bare) or not self.chunks:
            out.unsupported += 1
            out.dropped.append((bare, "no source"))
            return None
        sims = self.encode([bare])[0] @ self.vectors.T
        kept: list[str] = []
        why = ""
        for match in CITATION.finditer(sentence):
            first, last = int(match.group(1)), int(match.group(2) or match.group(1))
            if self.page_count and last > self.page_count:
                out.removed.extend(range(first, last + 1) if 0 <= last - first < 20 else [first])
                continue
            on_page = [j for j, c in enumerate(self.chunks) if c.page_start <= last and first <= c.page_end]
            close = [j for j in on_page if sims[j] >= KEEP and shares_words(bare, self.chunks[j].text)]
            verdicts = [self._check_mark(bare, self.chunks[j], first, last, match.group(0)) for j in close]
            marks = [mark for ok, _, mark in verdicts if ok]
            if match.group(0) in marks:
                kept.append(match.group(0))
                continue
            why = next((w for ok, w, _ in verdicts if not ok), why)
            out.removed.extend(range(first, last + 1) if 0 <= last - first < 20 else [first])
            kept.extend(marks[:1])  # the cited passage supports it, on its other page
        if kept:
            out.cited += 1
            return cite(bare, " ".join(dict.fromkeys(kept)))
        for j in [int(i) for i in np.argsort(-sims)[:3]]:
            chunk = self.chunks[j]
            if sims[j] < SUPPORT or not shares_words(bare, chunk.text):
                break
            first, last = self.pages_for(bare, chunk)
            ok, reason = self._supports(bare, chunk, first, last)
            if ok:
                out.cited += 1
                return cite(bare, page_mark(first, last))
            why = why or reason
        if why.startswith("not on the page") and bare not in out.numbers_flagged:
            out.numbers_flagged.append(bare)  # close to a page, with numbers or names the page does not state
        out.unsupported += 1
        out.dropped.append((bare, why or "no close source"))
        return None

    def _supports(self, sentence: str, chunk: Chunk, first: int, last: int) -> tuple[bool, str]:
        pages = " ".join(self.page(p) for p in dict.fromkeys((first, last)))
        return supports(sentence, chunk.text, pages, self.cover_min, self.words_min)

    def _check_mark(self, sentence: str, chunk: Chunk, first: int, last: int, mark: str) -> tuple[bool, str, str]:
        """(supported, why not, the mark to cite): the model's mark when the chunk's words the sentence uses
        are on the pages it names, else the page of the chunk (over a page break) where they are."""
        if chunk.page_start != chunk.page_end:
            a, b = self.pages_for(sentence, chunk)
            if not (a <= last and first <= b):
                first, last, mark = a, b, page_mark(a, b)
        ok, why = self._supports(sentence, chunk, first, last)
        return ok, why, mark

    def pages_for(self, sentence: str, chunk: Chunk) -> tuple[int, int]:
        """The page of `chunk` holding most of the chunk's words the sentence uses (both when they tie).

        Only the chunk's own words on each page count (chunk_pages.split_by_page), so a passage that runs
        from the foot of one page onto the next is cited where the supporting words are; when its words
        cannot be placed, each whole page's text is compared instead."""
        if chunk.page_start == chunk.page_end:
            return chunk.page_start, chunk.page_end
        mine = set(words(sentence))
        content = mine - STOPWORDS or mine  # function words are on every page: the content words decide
        overlap = {p: len(content & part) for p, part in self._chunk_parts(chunk).items()}
        if not overlap or max(overlap.values()) == 0:
            overlap = {p: len(mine & set(words(self.page(p)))) for p in range(chunk.page_start, chunk.page_end + 1)}
        best = max(overlap.values())
        if best == 0:
            return chunk.page_start, chunk.page_end
        pages = [p for p, n in overlap.items() if n == best]
        return pages[0], pages[-1]

    def _chunk_parts(self, chunk: Chunk) -> dict[int, set[str]]:
        key = (chunk.id, chunk.page_start, chunk.page_end)
        if key not in self._parts:
            split = split_by_page(chunk.text, chunk.page_start, chunk.page_end, self.page)
            self._parts[key] = {p: set(tokens) for p, tokens in split.items()}
        return self._parts[key]
