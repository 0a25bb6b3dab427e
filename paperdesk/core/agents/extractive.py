"""Extractive sections: the paper's own key sentences, quoted with their pages.

Used when a generated section fails the quality gate twice. Candidates are
the prose sentences of the section's source chunks; each is scored by its
centrality (mean similarity to those chunks: what they are mostly about) plus
its similarity to the section's purpose (what a Method or Results section
should say). The best few that do not repeat one another are quoted.
"""

from __future__ import annotations

import re
from typing import Callable, Sequence

import numpy as np

from paperdesk.core.agents.page_grounding import Encoder, page_mark
from paperdesk.core.agents.quality import words
from paperdesk.core.db.store import Chunk
from paperdesk.core.text.abbreviations import rejoin

NOTE = "_Quoted from the paper (extractive): the generated text failed the quality check._"
PURPOSES = {
    "problem": "the research problem, question and motivation this paper addresses",
    "method": "the method, approach, system or study design the authors propose and use",
    "results": "the results and findings: what the evaluation measured and showed",
    "limitations": "the limitations, weaknesses, open problems and future work the authors name",
}
SIMILAR = 0.85  # two candidates this close say the same thing; quote only one
_SENTENCE = re.compile(r"(?<=[.!?])\s+(?=[A-Z])")
# thanks and funding: an acknowledgement at the end of a section's last passage is no part of what it says
_THANKS = re.compile(r"\bthank|\bgrateful\b|\bindebted\b|\bfunded by\b|\bfunding from\b", re.I)


def prose(sentence: str) -> bool:
    """A quotable sentence: 8-45 words, mostly plain words, no addresses, figures, headings or thanks."""
    tokens = sentence.split()
    if not 8 <= len(tokens) <= 45 or "@" in sentence or "http" in sentence or sentence.isupper():
        return False
    if _THANKS.search(sentence):
        return False
    if not sentence.rstrip().endswith((".", "!", "?")) or not sentence[:1].isupper():
        return False
    plain = sum(1 for w in tokens if re.fullmatch(r"[a-z][a-z'-]*[.,;:]?", w))
    return plain / len(tokens) >= 0.6


def candidates(chunks: Sequence[Chunk]) -> list[tuple[str, Chunk]]:
    out: list[tuple[str, Chunk]] = []
    seen: set[str] = set()
    for chunk in chunks:
        for sentence in rejoin(_SENTENCE.split(" ".join(chunk.text.split()))):
            key = " ".join(words(sentence))
            if prose(sentence) and key not in seen:
                seen.add(key)
                out.append((sentence.strip(), chunk))
    return out


def key_sentences(
    chunks: Sequence[Chunk],
    chunk_vectors: np.ndarray,
    purpose: str,
    encode: Encoder,
    page_of: Callable[[str, Chunk], tuple[int, int]],
    limit: int = 3,
    used: set[str] | None = None,
) -> list[tuple[str, int, int]]:
    """Up to `limit` (sentence, first page, last page), in the paper's order, none in `used`."""
    used = used if used is not None else set()
    pool = [(s, c) for s, c in candidates(chunks) if " ".join(words(s)) not in used]
    if not pool:
        return []
    vectors = encode([s for s, _ in pool])
    centrality = (vectors @ chunk_vectors.T).mean(axis=1)
    score = centrality + vectors @ encode([purpose])[0]
    chosen: list[int] = []
    grams: set[tuple[str, ...]] = set()
    for i in np.argsort(-score):
        mine = _grams(pool[i][0])
        if any(float(vectors[i] @ vectors[j]) >= SIMILAR for j in chosen) or (mine & grams):
            continue  # quoting it would repeat a phrase already quoted
        chosen.append(int(i))
        grams |= mine
        if len(chosen) == limit:
            break
    chosen.sort(key=lambda i: (pool[i][1].ordinal, i))
    out = []
    for i in chosen:
        sentence, chunk = pool[i]
        used.add(" ".join(words(sentence)))
        first, last = page_of(sentence, chunk)
        out.append((sentence, first, last))
    return out


def render(quotes: Sequence[tuple[str, int, int]]) -> str:
    """The extractive section body: the note, then each sentence in quotes with its page."""
    lines = [NOTE]
    for sentence, first, last in quotes:
        lines.append(f"- “{sentence.rstrip('.')}” {page_mark(first, last)}.")
    return "\n".join(lines)


def _grams(sentence: str, n: int = 4) -> set[tuple[str, ...]]:
    tokens = words(sentence)
    return {tuple(tokens[i : i + n]) for i in range(len(tokens) - n + 1)}
