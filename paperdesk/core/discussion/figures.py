"""A discussion's figures, computed from its stored turns: never taken from what a model wrote.

Cited share: of a stored answer's sentences, those that carry a citation and
that the support check kept (the turn's `supported` sentences). A "not found"
answer has none: it quotes the paper, it does not answer. A turn stored before
the support check counts its sentences that carry a citation. Pages: the
discussed paper's pages the stored answer cites ([p. N], [pp. N-M]); another
paper's pages ([ID, p. N]) are not the paper's. Covered sections: those the
answers drew on and those the questions were about.
"""

from __future__ import annotations

import re
from typing import Sequence

from paperdesk.core.discussion.teacher import ANY_CITE, sentences
from paperdesk.core.discussion.types import Turn

OWN_PAGE = re.compile(r"\[pp?\. (\d+)(?:[-–](\d+))?\]")  # a citation of the discussed paper's page (or pages)


def _flat(text: str) -> str:
    return " ".join(text.split()).lower()


def cited_share(turn: Turn) -> float:
    """Share of the stored answer's sentences that carry a citation the support check kept."""
    parts = sentences(turn.answer)
    if not parts:
        return 0.0
    if turn.supported is None:  # stored before the support check: its citation marks are all there is
        return sum(1 for s in parts if ANY_CITE.search(s)) / len(parts)
    kept = [_flat(s) for s in turn.supported if ANY_CITE.search(s)]
    return sum(1 for s in parts if any(_flat(s) in k for k in kept)) / len(parts)  # a quote split in two counts


def share(turns: Sequence[Turn]) -> float:
    """The mean cited share of `turns` (0.0 for none)."""
    return sum(cited_share(t) for t in turns) / len(turns) if turns else 0.0


def pages_cited(turn: Turn) -> set[int]:
    """The discussed paper's pages the stored answer cites."""
    out: set[int] = set()
    for m in OWN_PAGE.finditer(turn.answer):
        first = int(m.group(1))
        last = int(m.group(2) or first)
        out.update(range(first, min(last, first + 20) + 1))
    return out


def covered_sections(turns: Sequence[Turn]) -> set[str]:
    """The sections the answers drew on and the questions were about."""
    out: set[str] = set()
    for t in turns:
        out.update(t.sections)
        if t.topic.get("section"):
            out.add(t.topic["section"])
    return out


def asked_targets(turns: Sequence[Turn]) -> set[str]:
    """What the turns' questions were about (a section heading or a key term)."""
    return {str(t.topic.get("target")) for t in turns if t.topic.get("target")}
