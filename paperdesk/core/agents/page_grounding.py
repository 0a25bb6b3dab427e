"""Page citations for summary sentences, placed by code: each sentence against the chunks it came from.

The same test as answers (attribution.py): a sentence is supported by a chunk
when its embedding is close to the chunk's and it shares content words with
it, and every number it states is on that chunk. A supported sentence gets
`[p. N]` (or `[pp. N-M]` when the words span pages); the model's own page
citations stay only when a chunk on that page supports the sentence.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Callable, Sequence

import numpy as np

from paperdesk.core.agents.attribution import KEEP, SUPPORT, shares_words
from paperdesk.core.agents.citations import CITATION
from paperdesk.core.agents.quality import split_sentences, unsupported_numbers, words
from paperdesk.core.store import Chunk

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
    numbers_flagged: list[str] = field(default_factory=list)  # sentences whose numbers the cited page lacks

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


class PageGrounder:
    """Grounds sentences in a fixed set of source chunks (those a section was written from)."""

    def __init__(self, chunks: Sequence[Chunk], vectors: np.ndarray, encode: Encoder, page_text: PageText) -> None:
        self.chunks = list(chunks)
        self.vectors = vectors
        self.encode = encode
        self._page_text = page_text
        self._pages: dict[int, str] = {}

    def page(self, number: int) -> str:
        if number not in self._pages:
            self._pages[number] = self._page_text(number) or ""
        return self._pages[number]

    def ground(self, text: str) -> SectionGrounding:
        """Check the model's page citations and cite every supported sentence; count the rest."""
        lines = [split_sentences(line) for line in text.splitlines()]
        flat = [s for line in lines for s in line]
        out = SectionGrounding(text)
        if not flat or not self.chunks:
            out.sentences, out.unsupported = len(flat), len(flat)
            return out
        sims = self.encode([CITATION.sub("", s) for s in flat]) @ self.vectors.T
        done: list[str] = []
        for i, sentence in enumerate(flat):
            done.append(self._one(sentence, sims[i], out))
        # Keep the section's lines (bullets stay bullets).
        rebuilt, k = [], 0
        for line in lines:
            rebuilt.append(" ".join(done[k : k + len(line)]))
            k += len(line)
        out.text = "\n".join(r for r in rebuilt if r.strip())
        out.sentences = len(flat)
        return out

    def _one(self, sentence: str, sims: np.ndarray, out: SectionGrounding) -> str:
        bare = CITATION.sub("", sentence)
        bare = re.sub(r"\s+([.,;:!?])", r"\1", bare).strip()
        kept: list[str] = []
        for match in CITATION.finditer(sentence):
            first, last = int(match.group(1)), int(match.group(2) or match.group(1))
            on_page = [j for j, c in enumerate(self.chunks) if c.page_start <= last and first <= c.page_end]
            close = [j for j in on_page if sims[j] >= KEEP and shares_words(bare, self.chunks[j].text)]
            if close and any(self._numbers_ok(bare, self.chunks[j], first, last) for j in close):
                kept.append(match.group(0))
                continue
            if close and bare not in out.numbers_flagged:
                out.numbers_flagged.append(bare)  # on the page, but with numbers the page does not state
            out.removed.extend(range(first, last + 1) if 0 <= last - first < 20 else [first])
        if kept:
            out.cited += 1
            return cite(bare, " ".join(dict.fromkeys(kept)))
        best = int(np.argmax(sims))
        chunk = self.chunks[best]
        if sims[best] < SUPPORT or not shares_words(bare, chunk.text):
            out.unsupported += 1
            return bare
        if unsupported_numbers(bare, chunk.text):
            if bare not in out.numbers_flagged:
                out.numbers_flagged.append(bare)
            out.unsupported += 1
            return bare
        first, last = self.pages_for(bare, chunk)
        out.cited += 1
        return cite(bare, page_mark(first, last))

    def _numbers_ok(self, sentence: str, chunk: Chunk, first: int, last: int) -> bool:
        return not unsupported_numbers(sentence, chunk.text + " " + self.page(first) + " " + self.page(last))

    def pages_for(self, sentence: str, chunk: Chunk) -> tuple[int, int]:
        """The page of `chunk` whose text shares most words with the sentence (both when they tie)."""
        if chunk.page_start == chunk.page_end:
            return chunk.page_start, chunk.page_end
        mine = set(words(sentence))
        overlap = {p: len(mine & set(words(self.page(p)))) for p in range(chunk.page_start, chunk.page_end + 1)}
        best = max(overlap.values())
        if best == 0:
            return chunk.page_start, chunk.page_end
        pages = [p for p, n in overlap.items() if n == best]
        return pages[0], pages[-1]
