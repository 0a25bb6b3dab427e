"""Fusing two ranked lists: reciprocal rank fusion and convex score fusion.

Convex fusion scales each list's scores (min-max or z-score) and mixes them
with a weight alpha on the vector side. `query_alpha` shifts alpha per query
by how confident the keyword side looks (how far its top score stands out)
and the vector side looks (how high its top cosine is).
The defaults in config.py were chosen by 5-fold cross-validation on SciFact
dev (`paperdesk bench retrieval`, its `cv` section).
"""

from __future__ import annotations

import math
from typing import Sequence

Ranked = Sequence[tuple[int, float]]


def rrf(rankings: Sequence[Ranked], k: int = 60) -> list[tuple[int, float]]:
    """Reciprocal rank fusion: score = sum over lists of 1 / (k + rank)."""
    scores: dict[int, float] = {}
    for ranking in rankings:
        for rank, (item, _score) in enumerate(ranking, start=1):
            scores[item] = scores.get(item, 0.0) + 1.0 / (k + rank)
    return sorted(scores.items(), key=lambda kv: (-kv[1], kv[0]))


def min_max(ranking: Ranked, extra: dict[int, float] | None = None) -> dict[int, float]:
    """Scores scaled to [0, 1] within the list (all 1.0 if they are equal); `extra` scaled alike."""
    if not ranking:
        return {}
    values = [s for _, s in ranking]
    low, high = min(values), max(values)
    span = high - low
    if span <= 0:
        return {item: 1.0 for item in [*(i for i, _ in ranking), *(extra or ())]}
    out = {item: (score - low) / span for item, score in (extra or {}).items()}
    out.update({item: (score - low) / span for item, score in ranking})
    return out


def z_score(ranking: Ranked, extra: dict[int, float] | None = None) -> dict[int, float]:
    """Scores as standard deviations from the list's mean (all 0.0 if they are equal); `extra` scaled alike."""
    if not ranking:
        return {}
    values = [s for _, s in ranking]
    mean = sum(values) / len(values)
    std = math.sqrt(sum((v - mean) ** 2 for v in values) / len(values))
    if std <= 0:
        return {item: 0.0 for item in [*(i for i, _ in ranking), *(extra or ())]}
    out = {item: (score - mean) / std for item, score in (extra or {}).items()}
    out.update({item: (score - mean) / std for item, score in ranking})
    return out


NORMS = {"minmax": min_max, "zscore": z_score}


def convex(keyword: Ranked, vector: Ranked, alpha: float, norm: str = "minmax",
           vector_extra: dict[int, float] | None = None) -> list[tuple[int, float]]:
    """alpha * vector + (1 - alpha) * keyword on scaled scores.

    An item missing from one list gets that list's lowest scaled score (0 for
    min-max): it ranked below everything the list kept. `vector_extra` gives
    exact raw vector scores for some of those items instead, scaled with the
    list's own statistics.
    """
    scale = NORMS[norm]
    kw, vec_list = scale(keyword), scale(vector)
    kw_floor, vec_floor = min(kw.values(), default=0.0), min(vec_list.values(), default=0.0)
    vec = scale(vector, vector_extra) if vector_extra else vec_list
    items = set(kw) | set(vec)
    fused = {i: alpha * vec.get(i, vec_floor) + (1.0 - alpha) * kw.get(i, kw_floor) for i in items}
    return sorted(fused.items(), key=lambda kv: (-kv[1], kv[0]))


def keyword_confidence(keyword: Ranked, depth: int = 10) -> float:
    """How far the top keyword score stands above the next `depth` (in their standard deviations)."""
    values = [s for _, s in keyword[:depth]]
    if len(values) < 2:
        return 0.0
    mean = sum(values) / len(values)
    std = math.sqrt(sum((v - mean) ** 2 for v in values) / len(values))
    return (values[0] - mean) / std if std > 0 else 0.0


# The top cosine of all-MiniLM-L6-v2 over SciFact dev queries: median 0.63, standard deviation 0.12.
# A query whose best vector hit is unusually close is one the vector side understood.
VECTOR_TOP_CENTRE = 0.63
VECTOR_TOP_SCALE = 0.12


def vector_confidence(vector: Ranked) -> float:
    """How far the top cosine lies above a typical query's, in typical standard deviations (0 if no hits)."""
    if not vector:
        return 0.0
    return (vector[0][1] - VECTOR_TOP_CENTRE) / VECTOR_TOP_SCALE


def query_alpha(alpha: float, keyword: Ranked, gamma: float, centre: float, vector: Ranked = (),
                beta: float = 0.0) -> float:
    """Alpha for this query: lower (more keyword) when BM25's top hit stands out (gamma), higher (more
    vector) when the top cosine is high for this model (beta). Both 0: the same alpha for every query."""
    shift = 0.0
    if gamma:
        shift -= gamma * (keyword_confidence(keyword) - centre)
    if beta and vector:
        shift += beta * vector_confidence(vector)
    return min(1.0, max(0.0, alpha + shift)) if shift else alpha
