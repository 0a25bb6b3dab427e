"""Before the teacher says "not found": does one of the paper's best passages answer after all?

The model's sentences can all fail the support check (a loose paraphrase, a
number moved) while the passage it read holds the answer. So, before an answer
is declared not found, the paper's own top passages are cut into sentences
(selection.candidates) and a sentence that holds most of the question's content
words (by stem, each weighted by its rarity among those sentences; at least
two of them, or the one there is) answers it, when it also states the kind of
fact asked for (a share for "what share", a count for
"how many"; evidence.answer_marks). That sentence is then quoted and cited with
its page instead of "not found".
"""

from __future__ import annotations

import math
import re
from typing import Callable, Sequence

import numpy as np

from paperdesk.core.agents.evidence import answer_marks, stems
from paperdesk.core.agents.selection import Candidate, candidates

Encoder = Callable[[Sequence[str]], np.ndarray]

QUOTE_WORDS = 45  # a quoted sentence is cut after this many words
HOLDS = 0.6  # share of the question's content words a sentence must hold to answer it
MIN_WORDS = 6  # a shorter piece (a heading, a label) is not an answer
_CAPS = r"[A-Z][A-Z0-9&:,-]*\s+"
_HEADING = re.compile(rf"^\s*(?:[A-Z]?\d+(?:\.\d+)*\.?\s+(?:{_CAPS}){{1,12}}|(?:{_CAPS}){{2,12}})(?=[A-Z][a-z])")
# words that say what kind of answer is wanted, not what it is about: "what does X mean", "explain X"
FRAME = frozenset(stems("mean means meaning explain explains describe describes tell detail details more "
                        "discuss discusses section sections part parts"))


def asked_words(question: str) -> set[str]:
    """The question's content words, by stem, without the words that only frame it."""
    return stems(question) - FRAME


def answering_sentence(question: str, own: Sequence[tuple[int, str, int, int]],
                       encode: Encoder | None = None) -> tuple[int, str] | None:
    """(position in `own`, sentence) of the paper's sentence that answers `question`, or None.

    `own` holds (source index, passage text, first page, last page) of the paper's passages, best first. A
    sentence answers when it holds HOLDS of the question's content words, each weighted by its rarity among
    the passages' sentences (a word every sentence holds, like the paper's own topic, weighs little; a
    word none holds, much), and at least two of them (or the one there is). Of those, the one closest in
    meaning to the question (with `encode`), else the one holding most, then the earlier passage's."""
    asked = asked_words(question)
    if not asked:
        return None
    found = [Candidate(c.hit, _unheaded(c.text)) for c in candidates([text for _, text, _, _ in own])]
    found = [c for c in found if len(c.text.split()) >= MIN_WORDS]
    held_by = [asked & stems(c.text) for c in found]
    weights = {w: math.log(1 + len(found) / (1 + sum(1 for h in held_by if w in h))) for w in asked}
    total = sum(weights.values())
    kind = answer_marks(question)
    need = min(2, len(asked))
    fit = [(sum(weights[w] for w in held) / total, i) for i, held in enumerate(held_by)
           if len(held) >= need and (kind is None or kind.search(found[i].text))]
    fit = [(share, i) for share, i in fit if share >= HOLDS]
    if not fit:
        return None
    if encode is not None and len(fit) > 1:
        vectors = encode([question, *(found[i].text for _, i in fit)])
        closeness = vectors[1:] @ vectors[0]
        _, best = max(zip(closeness, (i for _, i in fit)), key=lambda x: (float(x[0]), -x[1]))
    else:
        _, best = max(fit, key=lambda x: (x[0], -x[1]))
    return found[best].hit, found[best].text


def _unheaded(sentence: str) -> str:
    """The sentence without the section heading a passage opens with ("2 CHARACTERIZING WRITING In ...")."""
    return _HEADING.sub("", sentence, count=1)


def cut_quote(sentence: str) -> str:
    """The sentence as quoted: its first QUOTE_WORDS words, " ..." marking a cut."""
    words = sentence.split()
    return sentence if len(words) <= QUOTE_WORDS else " ".join(words[:QUOTE_WORDS]) + " ..."
