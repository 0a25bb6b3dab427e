"""The sentences a summary's limitations section reads first: where the paper says what its work cannot do.

A summary's notes are taken from the first passage of each body section, and a paper's limits are seldom
there: they sit in a discussion's later paragraphs, or in one sentence of a method ("for lack of space, X
was used instead of Y"). Written from those notes alone, a small writer fills the section with what the
paper did. So the section also reads the paper's sentences that read most like a limitation and least like a
finding: each quotable sentence of the body is scored by its closeness in meaning to what a limitation says
(the description an answer to a limitation question is scored by) less its closeness to what a finding says
(both in words of no paper), a sentence of a limitation or discussion section lifted a little. About 200
sentences of a 15-page paper are embedded in well under a second.
"""

from __future__ import annotations

from typing import Any, Callable, Sequence

import numpy as np

from paperdesk.core.agents.evidence import (LIMITATION_SECTIONS, evidence_sentences, is_boilerplate,
                                            limitation_description)
from paperdesk.core.agents.extractive import prose
from paperdesk.core.db.store import Chunk

FINDING = "A finding of the work: what its method achieved, measured or showed."
SECTION_LIFT = 0.05  # cosine units added for a sentence of a limitation, future-work or discussion section
NOTES = 3  # sentences the section reads before the notes


def limitation_sentences(chunks: Sequence[Chunk], encode: Callable[[Sequence[str]], Any],
                         limit: int = NOTES) -> list[tuple[str, Chunk]]:
    """The `limit` quotable body sentences that read most like a limitation, best first (a caption's fragment,
    a table row or a reference is no statement of a limit)."""
    pool = [(s, c) for c in chunks if not is_boilerplate(c.section, c.text)
            for s in evidence_sentences(c.text) if prose(s)]
    if not pool:
        return []
    vectors = np.asarray(encode([s for s, _ in pool]))
    limitation, finding = np.asarray(encode([limitation_description(), FINDING]))
    lift = np.array([SECTION_LIFT if any(r in c.section.lower() for r in LIMITATION_SECTIONS) else 0.0
                     for _, c in pool])
    scores = vectors @ limitation - vectors @ finding + lift
    return [pool[i] for i in np.argsort(-scores, kind="stable")[:limit]]


def limitation_notes(chunks: Sequence[Chunk], encode: Callable[[Sequence[str]], Any]
                     ) -> tuple[list[str], list[Chunk]]:
    """Notes ("- sentence [p. N].") of the paper's most limitation-like sentences, and the passages they are in."""
    notes, passages = [], []
    for sentence, chunk in limitation_sentences(chunks, encode):
        pages = (f"p. {chunk.page_start}" if chunk.page_start == chunk.page_end
                 else f"pp. {chunk.page_start}-{chunk.page_end}")  # the grounder moves it to the page that holds it
        notes.append(f"- {sentence.rstrip('. ')} [{pages}].")
        if chunk not in passages:
            passages.append(chunk)
    return notes, passages
