"""The writer's own reading of which candidate sentences state the answer, before it phrases one.

The sentence scorer (evidence.py) ranks a passage's sentences by closeness in meaning and the question's rare
words: it finds the sentences on the topic, and among them the one that states the fact is often not the
first. The writer reads better than that scorer what a sentence says, so the best-scoring candidates over
all the passages are put to it one at a time: does this sentence state the answer to the question? Its
probability of "yes" (from its next-token scores, nothing generated; the question is the shared opening
the model keeps cached) lifts each candidate's score by up to JUDGE_WEIGHT. The passages are then
ordered by their best lifted sentence, so the passage whose sentence the writer judged to answer is read
first, and each window shows its passage's best lifted sentence beside the scorer's best and neighbours (a
window cut around the writer's pick instead lost the neighbours that held the answer as often as it gained
one). The lift is added on top of the scorer's score and only candidates get it, so a candidate never falls
below a sentence that was not put to the writer; when the time allowed runs out, the candidates not yet
judged keep their scores.
"""

from __future__ import annotations

from typing import Sequence

import numpy as np

from paperdesk.core.agents.evidence import Scored
from paperdesk.core.cancel import CancelToken
from paperdesk.core.prompts import render

JUDGE_WEIGHT = 1.0  # a sure "yes" lifts a sentence by this much, in the scorer's units (cosine)


def judged(backend: object, question: str, scored: Sequence[Scored], candidates: int,
           cancel: CancelToken | None = None, seconds: float | None = None) -> tuple[list[Scored], list[int]]:
    """`scored` with each passage's judged best sentence marked `kept` (its window shows it beside the
    scorer's best and neighbours), and the passages' order by their best lifted sentence (ties keep the given
    order). Only the `candidates` best-scoring sentences over all passages are put to the writer. A backend
    that cannot judge (capabilities.judges) leaves both as they were."""
    order = list(range(len(scored)))
    if candidates <= 0 or not getattr(getattr(backend, "capabilities", None), "judges", False) or not scored:
        return list(scored), order
    flat = [(i, j) for i, passage in enumerate(scored) for j in range(len(passage.sentences))]
    values = np.array([scored[i].scores[j] for i, j in flat], dtype=np.float64)
    picked = [flat[n] for n in np.argsort(-values, kind="stable")[:candidates]]
    system, opening, items = prompt(question, [scored[i].sentences[j] for i, j in picked])
    margins = backend.yes_margins(system, opening, items, cancel=cancel, seconds=seconds)  # type: ignore[attr-defined]
    if not margins:
        return list(scored), order
    lifted = [np.array(p.scores, dtype=np.float64) for p in scored]
    for (i, j), value in zip(picked, margins):
        lifted[i][j] += JUDGE_WEIGHT / (1.0 + np.exp(-value))
    best = [float(v.max()) if len(v) else float("-inf") for v in lifted]
    order.sort(key=lambda i: -best[i])
    judged_passages = {i for i, _ in picked[:len(margins)]}
    return [Scored(p.sentences, p.scores, p.typed, int(np.argmax(v)) if i in judged_passages else p.kept)
            for i, (p, v) in enumerate(zip(scored, lifted))], order


def prompt(question: str, sentences: Sequence[str]) -> tuple[str, str, list[str]]:
    """(system message, the opening every sentence's prompt shares, one item per sentence: the sentence, then
    the ask) from the three paragraphs of prompts/judge_sentence.txt, the question filled in."""
    system, opening, ask = render("judge_sentence", question=" ".join(question.split())).strip().split("\n\n")
    return system.strip(), opening.strip(), [f"Sentence: {' '.join(s.split())}\n{ask.strip()}" for s in sentences]
