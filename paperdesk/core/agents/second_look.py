"""Whether an answer written on a second, wider reading rests on what the first reading did not hold.

The second look (answer.write, `second_look`) reads the passages' best-fitting sentences wherever they
stand after the windows around each passage's best sentence gave no answer. Its purpose is the sentence
those windows cut out; an answer whose every sentence rests on a sentence the first reading already held
is the writer trying again on the same evidence, where it had rightly found nothing, and is not taken.
"""

from __future__ import annotations

import re
from typing import Sequence

from paperdesk.core.agents.attribution import split_sentences
from paperdesk.core.agents.evidence import evidence_sentences, stems

_REF = re.compile(r"\s*\[\d+\]")


def resting_sentence(sentence: str, passages: Sequence[str]) -> str | None:
    """The passages' sentence holding most of `sentence`'s content words (the first such), or None."""
    own = stems(_REF.sub("", sentence))
    if not own:
        return None
    best, share = None, 0.0
    for passage in passages:
        for candidate in evidence_sentences(passage):
            held = len(own & stems(candidate)) / len(own)
            if held > share:
                best, share = candidate, held
    return best


def reads_new(text: str, cited: Sequence[str], first_read: str) -> bool:
    """Some sentence of `text` rests on a sentence of its `cited` passages that `first_read` lacks."""
    seen = " ".join(first_read.split())
    for sentence in split_sentences(text):
        resting = resting_sentence(sentence, cited)
        if resting is not None and " ".join(resting.split()) not in seen:
            return True
    return False
