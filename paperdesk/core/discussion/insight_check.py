"""The observer's statements, each checked against the stored turns before it is shown or stored.

An insight is a statement about the transcript ("turn 5 repeated turn 2",
"the last 3 answers all cite page 4", "60% of the last answers' sentences are
supported") with the claim it makes as data: the turns it speaks of, the pages,
the share, the section or term. `holds` recomputes that claim from the stored
turns (figures.py) and says whether it is true; a statement that is not is
never shown: the observer says the next one that is, and at worst a plain
instruction that states nothing about the transcript (kind "plain").
"""

from __future__ import annotations

from typing import Any, Callable, Sequence

import numpy as np

from paperdesk.core.discussion.figures import asked_targets, covered_sections, pages_cited, share
from paperdesk.core.discussion.outline import Outline, mentions
from paperdesk.core.discussion.types import REPEAT, Turn

Encoder = Callable[[Sequence[str]], np.ndarray]
UNSUPPORTED = 0.5  # below this share of supported, cited sentences, answers are asked to cite
SHARE_SLACK = 0.005  # a stated share is its recomputed value, rounded


def holds(statement: dict[str, Any], turns: Sequence[Turn], outline: Outline, encode: Encoder | None = None) -> bool:
    """Whether what `statement` claims is true of `turns` (the stored turns, oldest first)."""
    kind = statement.get("kind")
    if kind == "plain":
        return True  # an instruction: it claims nothing about the transcript
    check = _CHECKS.get(str(kind))
    if check is None or not statement.get("text"):
        return False
    try:
        return bool(check(statement, turns, outline, encode))
    except (KeyError, TypeError, ValueError, IndexError):  # a statement without the data its claim needs
        return False


def _named(statement: dict[str, Any], turns: Sequence[Turn]) -> list[Turn] | None:
    """The stored turns the statement speaks of ("the last N answers": the last N stored turns), or None."""
    wanted = [int(n) for n in statement["turns"]]
    last = list(turns[-len(wanted):]) if wanted else []
    if not wanted or [t.n for t in last] != wanted:
        return None
    return last


def _repetition(statement: dict[str, Any], turns: Sequence[Turn], outline: Outline, encode: Encoder | None) -> bool:
    by_n = {t.n: t for t in turns}
    later, earlier = int(statement["turn"]), int(statement["earlier"])
    if later not in by_n or earlier not in by_n or earlier >= later or encode is None:
        return False
    vectors = encode([by_n[later].question, by_n[earlier].question])
    if float(vectors[0] @ vectors[1]) < REPEAT:
        return False
    target = statement.get("target", "")
    return not target or _open(target, turns, outline)


def _open(target: str, turns: Sequence[Turn], outline: Outline) -> bool:
    """A section no turn covered, or a key term no question was about."""
    if outline.section_of(target) is not None:
        return target not in covered_sections(turns)
    return any(t.text == target for t in outline.terms) and target not in asked_targets(turns)


def _uncovered_section(statement: dict[str, Any], turns: Sequence[Turn], outline: Outline, _e: Encoder | None) -> bool:
    target = statement["target"]
    return outline.section_of(target) is not None and target not in covered_sections(turns)


def _uncovered_term(statement: dict[str, Any], turns: Sequence[Turn], outline: Outline, _e: Encoder | None) -> bool:
    target = statement["target"]
    return (any(t.text == target for t in outline.terms) and target not in asked_targets(turns)
            and not any(mentions(t.question, target) for t in turns))


def _covered(statement: dict[str, Any], turns: Sequence[Turn], outline: Outline, _e: Encoder | None) -> bool:
    covered, asked = covered_sections(turns), asked_targets(turns)
    return all(s.heading in covered for s in outline.sections) and all(t.text in asked for t in outline.terms)


def _unsupported(statement: dict[str, Any], turns: Sequence[Turn], outline: Outline, _e: Encoder | None) -> bool:
    named = _named(statement, turns)
    if named is None:
        return False
    real = share(named)
    return real < UNSUPPORTED and abs(real - float(statement["share"])) <= SHARE_SLACK


def _narrow(statement: dict[str, Any], turns: Sequence[Turn], outline: Outline, _e: Encoder | None) -> bool:
    named = _named(statement, turns)
    pages = [int(p) for p in statement["pages"]]
    return named is not None and len(named) >= 2 and len(pages) == 1 and \
        all(pages_cited(t) == {pages[0]} for t in named)


def _ok(statement: dict[str, Any], turns: Sequence[Turn], outline: Outline, _e: Encoder | None) -> bool:
    named = _named(statement, turns)
    if named is None:
        return False
    pages = sorted({p for t in named for p in pages_cited(t)})
    real = share(named)
    return real >= UNSUPPORTED and abs(real - float(statement["share"])) <= SHARE_SLACK and \
        [int(p) for p in statement["pages"]] == pages


_CHECKS: dict[str, Callable[[dict[str, Any], Sequence[Turn], Outline, Encoder | None], bool]] = {
    "repetition": _repetition, "uncovered_section": _uncovered_section, "uncovered_term": _uncovered_term,
    "covered": _covered, "unsupported": _unsupported, "narrow": _narrow, "ok": _ok,
}


def first_true(statements: Sequence[dict[str, Any]], turns: Sequence[Turn], outline: Outline,
               encode: Encoder | None, plain: dict[str, Any]) -> dict[str, Any]:
    """The first of `statements` that holds of `turns`; `plain` (an instruction) when none does."""
    return next((s for s in statements if holds(s, turns, outline, encode)), plain)
