"""Hybrid retrieval: BM25 candidates and vector candidates, fused.

`HybridRanker.rank` is the one code path every face and every benchmark
uses; it works on chunk ids only. The library turns its output into hits
with paper metadata and snippets.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Sequence

import numpy as np

from paperdesk.core.search import fusion
from paperdesk.core.search.keyword import KeywordIndex
from paperdesk.core.search.vectors import VectorIndex

MODES = ("hybrid", "keyword", "vector")
FUSIONS = ("convex", "rrf")


@dataclass
class Ranked:
    chunk_id: int
    score: float
    keyword: float | None
    vector: float | None


class HybridRanker:
    """Ranks chunks for a query by keyword, vector or fused scores."""

    def __init__(
        self,
        keyword: KeywordIndex,
        vectors: VectorIndex,
        encode_query: Callable[[str], np.ndarray],
        fusion_method: str = "convex",
        alpha: float = 0.5,
        rrf_k: int = 60,
        candidates: int = 100,
    ) -> None:
        if fusion_method not in FUSIONS:
            raise ValueError(f"fusion must be one of {FUSIONS}")
        self.keyword = keyword
        self.vectors = vectors
        self.encode_query = encode_query
        self.fusion_method = fusion_method
        self.alpha = alpha
        self.rrf_k = rrf_k
        self.candidates = candidates

    def rank(
        self,
        query: str,
        k: int = 10,
        mode: str = "hybrid",
        papers: Sequence[str] | None = None,
        allowed_chunks: np.ndarray | None = None,
        query_vector: np.ndarray | None = None,
    ) -> list[Ranked]:
        """Top-k chunks. `papers` filters keyword hits, `allowed_chunks` the vector hits."""
        if mode not in MODES:
            raise ValueError(f"mode must be one of {MODES}")
        pool = max(k, self.candidates)
        kw: list[tuple[int, float]] = []
        vec: list[tuple[int, float]] = []
        if mode in ("hybrid", "keyword"):
            kw = self.keyword.search(query, pool if mode == "hybrid" else k, papers)
        if mode in ("hybrid", "vector") and len(self.vectors):
            qv = query_vector if query_vector is not None else self.encode_query(query)
            vec = self.vectors.search(qv, pool if mode == "hybrid" else k, allowed_chunks)
        kw_scores, vec_scores = dict(kw), dict(vec)
        if mode == "keyword":
            fused = kw
        elif mode == "vector":
            fused = vec
        elif self.fusion_method == "rrf":
            fused = fusion.rrf([kw, vec], self.rrf_k)
        else:
            fused = fusion.convex(kw, vec, self.alpha)
        return [
            Ranked(cid, score, kw_scores.get(cid), vec_scores.get(cid)) for cid, score in fused[:k]
        ]
