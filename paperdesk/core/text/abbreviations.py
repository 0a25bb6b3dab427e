"""Full stops that do not end a sentence: the abbreviations scholarly prose writes mid-sentence.

A splitter that ends a sentence at every ". " before a capital, digit or bracket cuts "Kim et al. [31] develop
a graph-based method" into "Kim et al." and "[31] develop a graph-based method", and "as shown in Fig. 2" into
two. The second half then reads as a sentence without its subject, in an answer's evidence and in a summary's
notes alike. `rejoin` puts such pieces back together.
"""

from __future__ import annotations

import re
from typing import Iterable

# Never the end of a sentence in running text.
_INSIDE = frozenset("e.g. i.e. cf. vs. viz. approx. resp. ca.".split())
# Written before a reference, a number or a label: "et al. (2007)", "et al. [3]", "Fig. 2", "Eq. (4)", "Sec. 3.1",
# "Fig. S2". Before a capitalised word they may end a sentence ("... by Kim et al. The next ..."), so they join
# only a piece that opens with such a reference.
_BEFORE_REFERENCE = frozenset(
    "al. fig. figs. eq. eqs. eqn. eqns. tab. tabs. sec. sect. secs. ref. refs. no. nos. vol. ch. chap. app. "
    "thm. lem. prop. def. alg. p. pp.".split())
_REFERENCE = re.compile(r"[(\[]|\d|[A-Z]\d")


def _last_word(text: str) -> str:
    """The text's last word, lower-cased, without an opening bracket or quote ("(Fig." -> "fig.")."""
    words = text.split()
    return words[-1].lstrip("([{\"'“").lower() if words else ""


def joins(before: str, after: str) -> bool:
    """`after` goes on the sentence `before` ends: the full stop closing `before` is an abbreviation's."""
    last = _last_word(before)
    if not last or not after:
        return False
    if last in _INSIDE:
        return True
    return last in _BEFORE_REFERENCE and bool(_REFERENCE.match(after))


def undecided(before: str, after: str) -> bool:
    """Streamed text: whether `after` goes on `before` cannot be told yet ("Fig. S" may become "Fig. S2")."""
    return len(after) < 2 and _last_word(before) in _BEFORE_REFERENCE


def rejoin(pieces: Iterable[str]) -> list[str]:
    """Pieces split at every full stop, joined again where a full stop closed an abbreviation."""
    out: list[str] = []
    for piece in pieces:
        if out and joins(out[-1], piece):
            out[-1] = f"{out[-1]} {piece}"
        else:
            out.append(piece)
    return out
