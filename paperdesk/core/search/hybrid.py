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
        norm: str = "minmax",
        alpha_gamma: float = 0.0,
        alpha_centre: float = 3.0,
        fill_vector: bool = False,
        alpha_beta: float = 0.0,
    ) -> None:
        if fusion_method not in FUSIONS:
            raise ValueError(f"fusion must be one of {FUSIONS}")
        if norm not in fusion.NORMS:
            raise ValueError(f"norm must be one of {tuple(fusion.NORMS)}")
        self.keyword = keyword
        self.vectors = vectors
        self.encode_query = encode_query
        self.fusion_method = fusion_method
        self.alpha = alpha
        self.rrf_k = rrf_k
        self.candidates = candidates
        self.norm = norm
        self.alpha_gamma = alpha_gamma  # 0: the same alpha for every query
        self.alpha_centre = alpha_centre
        self.fill_vector = fill_vector  # exact cosines for keyword candidates the vector top list missed
        self.alpha_beta = alpha_beta  # 0: the vector side's confidence does not move alpha

    @classmethod
    def from_settings(cls, keyword: KeywordIndex, vectors: VectorIndex, encode_query: Callable[[str], np.ndarray],
                      settings) -> "HybridRanker":
        """A ranker (and the keyword index's tunables) as the search.* settings say."""
        keyword.configure(settings["search.title_boost"], settings["search.prf_docs"], settings["search.prf_weight"])
        return cls(keyword, vectors, encode_query, settings["search.fusion"], settings["search.alpha"],
                   settings["search.rrf_k"], settings["search.candidates"], settings["search.norm"],
                   settings["search.alpha_gamma"], settings["search.alpha_centre"], settings["search.fill_vector"],
                   settings["search.alpha_beta"])

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
            alpha = fusion.query_alpha(self.alpha, kw, self.alpha_gamma, self.alpha_centre, vec, self.alpha_beta)
            extra = None
            if self.fill_vector and vec:
                missing = [cid for cid, _ in kw if cid not in vec_scores]
                cosines = self.vectors.scores_of(qv, missing) if missing else []
                extra = {cid: float(c) for cid, c in zip(missing, cosines) if c == c}  # NaN: not in the index
                vec_scores.update(extra)
            fused = fusion.convex(kw, vec, alpha, self.norm, extra)
        return [
            Ranked(cid, score, kw_scores.get(cid), vec_scores.get(cid)) for cid, score in fused[:k]
        ]
