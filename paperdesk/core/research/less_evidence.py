"""A retry with less evidence: what a step that ran past its time limit is tried once more with.

Half the passages it reads or fetches: its own `k` (or `max` for arxiv_search) when the plan set one,
read_paper's default otherwise, and the run's passage count (the tool context's `k`, which
library_search and answer use) for the rest. A shorter prompt is read and answered sooner.
"""

from __future__ import annotations

from typing import Any

READ_PAPER_K = 3  # passages read_paper takes when its step sets no k (tools.read_paper)
TAKES_PASSAGES = ("library_search", "read_paper", "answer", "arxiv_search")


def halved(value: int) -> int:
    return max(1, value // 2)


def _said(key: str, before: int) -> str:
    after = halved(before)
    return f"{key} {after} instead of {before}" if after < before else f"{key} {before}, the least there is"


def less_evidence(tool: str, params: dict[str, Any], ctx: Any) -> tuple[dict[str, Any], str]:
    """(the retry's parameters, what was cut: 'k 2 instead of 5'); `ctx.k` is halved in place where it counts."""
    if tool not in TAKES_PASSAGES:
        return params, "the same inputs: the step reads no passages of its own"
    for key in ("k", "max"):
        if params.get(key):
            before = int(params[key])
            return {**params, key: halved(before)}, _said(key, before)
    if tool == "read_paper":
        return {**params, "k": halved(READ_PAPER_K)}, _said("k", READ_PAPER_K)
    if tool == "arxiv_search":
        return params, "the same search: arxiv_search reads no passages"
    before = int(ctx.k)
    ctx.k = halved(before)
    return params, _said("k", before)
