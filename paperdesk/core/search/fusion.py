"""Fusing two ranked lists: reciprocal rank fusion and convex score fusion."""

from __future__ import annotations

from typing import Sequence

Ranked = Sequence[tuple[int, float]]


def rrf(rankings: Sequence[Ranked], k: int = 60) -> list[tuple[int, float]]:
    """Reciprocal rank fusion: score = sum over lists of 1 / (k + rank)."""
    scores: dict[int, float] = {}
    for ranking in rankings:
        for rank, (item, _score) in enumerate(ranking, start=1):
            scores[item] = scores.get(item, 0.0) + 1.0 / (k + rank)
    return sorted(scores.items(), key=lambda kv: (-kv[1], kv[0]))


def min_max(ranking: Ranked) -> dict[int, float]:
    """Scores scaled to [0, 1] within the list (all 1.0 if they are equal)."""
    if not ranking:
        return {}
    values = [s for _, s in ranking]
    low, high = min(values), max(values)
    span = high - low
    if span <= 0:
        return {item: 1.0 for item, _ in ranking}
    return {item: (score - low) / span for item, score in ranking}


def convex(keyword: Ranked, vector: Ranked, alpha: float) -> list[tuple[int, float]]:
    """alpha * vector + (1 - alpha) * keyword on min-max scaled scores; absent counts as 0."""
    kw, vec = min_max(keyword), min_max(vector)
    items = set(kw) | set(vec)
    fused = {i: alpha * vec.get(i, 0.0) + (1.0 - alpha) * kw.get(i, 0.0) for i in items}
    return sorted(fused.items(), key=lambda kv: (-kv[1], kv[0]))
