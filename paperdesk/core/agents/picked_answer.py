"""An answer phrased from the sentences the writer picked, checked against them, else quoted.

After selection (selection.py) the writer sees only the picked sentences, grouped by passage and numbered
[1], [2] ... in pick order, and phrases the answer. Each phrased sentence must find its facts (numbers,
names, addresses) and any comparison direction in the picked sentences it cites; one that does not is not
shown. When no phrased sentence holds, the picked sentences themselves are the answer, quoted and cited:
a quote of the right sentence is a better answer than a fluent wrong one.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Callable, Sequence

from paperdesk.core.agents.attribution import SOURCE_REF, split_sentences

if TYPE_CHECKING:
    from paperdesk.core.agents.selection import Selection
    from paperdesk.core.library.library import Hit

# words that state which way a comparison goes; a sentence's direction must be one its source states
_UP = re.compile(r"\b(more|higher|larger|greater|bigger|increas\w*|rais\w*|rises?|rose|better|above|exceed\w*|"
                 r"outperform\w*|longer|faster|most|highest|largest|best)\b", re.I)
_DOWN = re.compile(r"\b(less|lower|smaller|fewer|decreas\w*|reduc\w*|drops?|dropped|fell|falls?|worse|below|"
                   r"underperform\w*|shorter|slower|least|lowest|smallest|worst)\b", re.I)


@dataclass
class Picked:
    hits: list["Hit"]  # the picked sentences' passages, in pick order, then the other passages
    texts: list[str]  # per passage of `hits`: its picked sentences (the others' evidence windows after them)
    count: int  # how many of `hits` hold picked sentences (they are [1] .. [count])


def arrange(selection: "Selection", hits: Sequence["Hit"], windows: Sequence[str]) -> Picked:
    """The passages renumbered so the picked ones come first, each cut to its picked sentences."""
    order: list[int] = []
    for candidate in selection.sentences:
        if candidate.hit not in order:
            order.append(candidate.hit)
    texts = [" ".join(c.text for c in selection.sentences if c.hit == i) for i in order]
    rest = [i for i in range(len(hits)) if i not in order]
    return Picked([hits[i] for i in order + rest], texts + [windows[i] for i in rest], len(order))


def direction_unstated(sentence: str, sources: Sequence[str]) -> str | None:
    """Why a sentence's comparison is not the sources': it says "more" or "less" (and the like) where the
    sentences it comes from state no such direction, or only the opposite one."""
    body = SOURCE_REF.sub(" ", sentence)
    known = " ".join(sources)
    for said in (_UP, _DOWN):
        word = said.search(body)
        if word and not said.search(known):
            return f"says '{word.group(0)}', a direction its sentences do not state"
    return None


def directions(sources: Sequence[str]) -> Callable[[str], str | None]:
    """A check for the fact gate: the sentence's comparison direction is stated by the sources it cites."""

    def check(sentence: str) -> str | None:
        cited = [int(n) for n in SOURCE_REF.findall(sentence) if 1 <= int(n) <= len(sources)]
        texts = [sources[n - 1] for n in cited] if cited else list(sources)
        return direction_unstated(sentence, texts)

    return check


def renumber(text: str, to_passage: dict[int, int]) -> str:
    """The writer's [k] (a candidate sentence's number) as [n] (its passage's number); a [k] that was not
    picked is dropped (its sentence then stands uncited, and grounding judges it)."""
    return SOURCE_REF.sub(lambda m: f"[{to_passage[int(m.group(1))]}]" if int(m.group(1)) in to_passage else "",
                          text)


_NOT_FOUND = re.compile(r"\bnot (?:found|stated|given|answered|in)\b.{0,40}\b(?:sentences?|passages?|papers?)\b|"
                        r"\bnone of the (?:sentences|passages)\b|"
                        r"\b(?:do|does) not (?:state|say|answer|mention|give|report)\b", re.I)


def says_not_found(text: str) -> bool:
    """The writer says the picked sentences do not answer the question."""
    return bool(_NOT_FOUND.search(text))


def quoted(picked: Picked) -> str:
    """The picked sentences themselves as the answer, each in quotes and cited ([n] of its passage)."""
    out = []
    for n, text in enumerate(picked.texts[:picked.count], start=1):
        for sentence in split_sentences(text):
            body = sentence.strip().rstrip(".")
            out.append(f"\u201c{body}.\u201d [{n}]")
    return " ".join(out)
