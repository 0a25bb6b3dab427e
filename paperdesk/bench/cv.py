"""K-fold cross-validation of fusion settings for `bench retrieval`.

Every candidate setting is scored on every query once (a configs x queries
matrix of nDCG@10); choosing on four folds and scoring on the fifth is then
a lookup. The fusion here is a vectorised copy of `core/search/fusion.py`
(same formulas, same tie order), checked against it by the unit tests.

What CV chooses among is fixed in advance (`in_family`): convex fusion of
min-max scaled scores over 200 candidates per side, exact cosines for the
keyword candidates, one alpha for every query; alpha and the keyword variant
are chosen. That is the fusion Bruch et al. (2023, "An Analysis of Fusion
Functions for Hybrid Retrieval") found sample-efficient: one weight to
learn. On SciFact dev its choice barely moves from fold to fold (alpha
0.4-0.5), while choosing among all 5,256 settings of the grid jumps between
scalings, depths and per-query shifts: it fits each training set's noise.
Neither is reliably better held out: over 20 fold splits the two won
62-77% of folds against both single methods, the order changing with int8
rounding of the vectors alone. Both are reported (`hybrid_full_grid`,
`repeated`), so that stays visible.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Sequence

import numpy as np

from paperdesk.core.search.fusion import keyword_confidence, vector_confidence

DEPTHS = (50, 100, 200)  # 20 never won a fold
ALPHAS = tuple(round(float(a), 2) for a in np.arange(0.1, 0.95, 0.1))
GAMMAS = (0.0, 0.1, 0.2)  # keyword-confidence shift of alpha
BETAS = (0.0, 0.1, 0.2, 0.3)  # vector-confidence (top cosine) shift of alpha
RRF_KS = (5, 10, 20, 40, 60, 100)
KEYWORD_VARIANTS = {  # name: (title boost, PRF docs, PRF weight)
    "plain": (1.0, 0, 0.0),
    "title x2": (2.0, 0, 0.0),
    "prf 3x0.3": (1.0, 3, 0.3),
    "prf 5x0.3": (1.0, 5, 0.3),
}
CENTRE = 3.0  # typical keyword_confidence on SciFact dev is 2-4; alpha and gamma absorb the rest


@dataclass(frozen=True)
class Setting:
    """One point of the grid: a keyword variant, the candidate depth and a fusion."""

    keyword: str  # name of a keyword variant (title boost, PRF)
    depth: int
    fusion: str  # "rrf", "minmax" or "zscore" (the latter two are convex)
    alpha: float = 0.0
    gamma: float = 0.0
    beta: float = 0.0
    rrf_k: int = 0
    fill: bool = False  # convex only: exact cosines for keyword candidates the vector list missed

    def label(self) -> str:
        tail = f"k={self.rrf_k}" if self.fusion == "rrf" else f"alpha={self.alpha} gamma={self.gamma} beta={self.beta} fill={self.fill}"
        return f"{self.keyword} depth={self.depth} {self.fusion} {tail}"


Run = Sequence[tuple[int, float]]


def ndcg10(ranked: Sequence[int], rel: dict[int, int]) -> float:
    dcg = sum(rel.get(d, 0) / math.log2(i + 2) for i, d in enumerate(ranked[:10]))
    ideal = sorted((g for g in rel.values() if g > 0), reverse=True)[:10]
    idcg = sum(g / math.log2(i + 2) for i, g in enumerate(ideal))
    return dcg / idcg if idcg else 0.0


def _scaled(run: Run, items: np.ndarray, norm: str, extra: dict[int, float] | None = None) -> np.ndarray:
    """The run's scaled scores on `items`; missing items get the floor, or `extra` raw scores scaled alike."""
    scores = np.array([s for _, s in run], dtype=np.float64)
    if not len(scores):
        return np.zeros(len(items))
    if norm == "minmax":
        shift, span = scores.min(), scores.max() - scores.min()
        scale = (lambda x: (x - shift) / span) if span > 0 else (lambda x: np.ones_like(x))
    else:
        mean, std = scores.mean(), scores.std()
        scale = (lambda x: (x - mean) / std) if std > 0 else (lambda x: np.zeros_like(x))
    scaled = scale(scores)
    out = np.full(len(items), scaled.min())
    pos = {item: n for n, item in enumerate(items)}
    if extra:
        present = [(pos[i], v) for i, v in extra.items() if i in pos]
        if present:
            rows, raw = zip(*present)
            out[list(rows)] = scale(np.array(raw, dtype=np.float64))
    for (item, _), value in zip(run, scaled):
        out[pos[item]] = value
    return out


def _top10(items: np.ndarray, fused: np.ndarray) -> list[int]:
    order = np.lexsort((items, -fused))  # score descending, then id ascending, as fusion.py sorts
    return [int(items[i]) for i in order[:10]]


def score_grid(keyword_runs: dict[str, dict[str, Run]], vector_runs: dict[str, Run],
               rels: dict[str, dict[int, int]], qids: Sequence[str],
               vector_fill: dict[str, dict[int, float]]) -> tuple[list[Setting], np.ndarray]:
    """All settings and their nDCG@10 per query (settings x queries)."""
    settings: list[Setting] = []
    rows: list[list[float]] = []
    for variant, runs in keyword_runs.items():
        for depth in DEPTHS:
            cols: dict[Setting, list[float]] = {}
            for qid in qids:
                kw, vec = list(runs[qid][:depth]), list(vector_runs[qid][:depth])
                items = np.array(sorted({i for i, _ in kw} | {i for i, _ in vec}), dtype=np.int64)
                rel = rels[qid]
                for k in RRF_KS:
                    fused = np.zeros(len(items))
                    pos = {item: n for n, item in enumerate(items)}
                    for run in (kw, vec):
                        for rank, (item, _) in enumerate(run, start=1):
                            fused[pos[item]] += 1.0 / (k + rank)
                    cols.setdefault(Setting(variant, depth, "rrf", rrf_k=k), []).append(ndcg10(_top10(items, fused), rel))
                confidence, v_confidence = keyword_confidence(kw), vector_confidence(vec)
                for norm in ("minmax", "zscore"):
                    k_scaled = _scaled(kw, items, norm)
                    for fill in (False, True):
                        v_scaled = _scaled(vec, items, norm, vector_fill[qid] if fill else None)
                        for alpha in ALPHAS:
                            for gamma in GAMMAS:
                                for beta in BETAS:
                                    shift = beta * v_confidence - gamma * (confidence - CENTRE)
                                    a = min(1.0, max(0.0, alpha + shift)) if shift else alpha
                                    fused = a * v_scaled + (1.0 - a) * k_scaled
                                    cols.setdefault(Setting(variant, depth, norm, alpha, gamma, beta, fill=fill),
                                                    []).append(ndcg10(_top10(items, fused), rel))
            for setting, values in cols.items():
                settings.append(setting)
                rows.append(values)
    return settings, np.array(rows)


def collect_runs(keyword, vectors, queries: dict[str, str], qvecs: np.ndarray, depth: int = max(DEPTHS)
                 ) -> tuple[dict[str, dict[str, Run]], dict[str, Run], dict[str, dict[int, float]]]:
    """Keyword runs per variant and the vector run, `depth` deep, through paperdesk's own indexes,
    and the exact cosine of every keyword candidate (for the `fill` settings)."""
    qids = list(queries)
    keyword_runs: dict[str, dict[str, list[tuple[int, float]]]] = {}
    saved = (keyword.title_boost, keyword.prf_docs, keyword.prf_weight)
    try:
        for name, (title, docs, weight) in KEYWORD_VARIANTS.items():
            keyword.configure(title, docs, weight)
            keyword_runs[name] = {q: keyword.search(queries[q], depth) for q in qids}
    finally:
        keyword.configure(*saved)
    vector_runs = {q: vectors.search(qvecs[n], depth) for n, q in enumerate(qids)}
    vector_fill = {}
    for n, q in enumerate(qids):
        wanted = sorted({i for runs in keyword_runs.values() for i, _ in runs[q]})
        vector_fill[q] = dict(zip(wanted, vectors.scores_of(qvecs[n], wanted).tolist()))
    return keyword_runs, vector_runs, vector_fill


FAMILY = "convex min-max, 200 candidates, exact cosines, one alpha"  # what `in_family` admits, for the report


def in_family(setting: Setting) -> bool:
    """The settings cross-validation chooses among (FAMILY; see the module docstring)."""
    return (setting.fusion == "minmax" and setting.fill and setting.depth == max(DEPTHS)
            and setting.gamma == 0 and setting.beta == 0)


def make_folds(count: int, k: int = 5, seed: int = 0) -> list[np.ndarray]:
    """k disjoint, shuffled index sets covering range(count)."""
    order = np.random.default_rng(seed).permutation(count)
    return [np.sort(part) for part in np.array_split(order, k)]


def cross_validate(scores: np.ndarray, folds: Sequence[np.ndarray], allowed: np.ndarray | None = None
                   ) -> tuple[list[float], list[int]]:
    """Per fold: the held-out mean of the row that is best on the other folds; and those rows."""
    rows = np.flatnonzero(allowed) if allowed is not None else np.arange(len(scores))
    held, chosen = [], []
    for fold in folds:
        train = np.setdiff1d(np.arange(scores.shape[1]), fold)
        means = scores[rows][:, train].mean(axis=1)
        best = int(rows[int(np.argmax(means))])  # first best: the grid order breaks ties
        chosen.append(best)
        held.append(float(scores[best, fold].mean()))
    return held, chosen


def cross_validate_robust(scores: np.ndarray, folds: Sequence[np.ndarray], keyword: np.ndarray,
                          vector: np.ndarray) -> tuple[list[float], list[int]]:
    """Like `cross_validate`, but each fold's row is the one whose worst margin over both single methods,
    across the training folds, is largest (maximin), instead of the best mean. The goal is a hybrid that
    beats keyword and vector on every fold; the mean picks settings that win big on some folds and lose
    on others. The keyword baseline per training fold is the keyword variant best on those folds, as the
    keyword column chooses it."""
    held, chosen = [], []
    for n, fold in enumerate(folds):
        train = [f for m, f in enumerate(folds) if m != n]
        train_all = np.concatenate(train)
        kw = keyword[int(np.argmax(keyword[:, train_all].mean(axis=1)))]
        bar = np.array([max(kw[f].mean(), vector[f].mean()) for f in train])
        per_fold = np.stack([scores[:, f].mean(axis=1) for f in train], axis=1)
        best = int(np.argmax((per_fold - bar).min(axis=1)))
        chosen.append(best)
        held.append(float(scores[best, fold].mean()))
    return held, chosen


def always_winning(scores: np.ndarray, folds: Sequence[np.ndarray], keyword_held: Sequence[float],
                   vector_held: Sequence[float]) -> int:
    """How many settings beat both single methods on every fold when fixed in advance (chosen in-sample):
    whether the family can win everywhere at all, apart from whether CV can find such a setting."""
    bar = np.maximum(np.asarray(keyword_held), np.asarray(vector_held))
    per_fold = np.stack([scores[:, f].mean(axis=1) for f in folds], axis=1)
    return int(((per_fold > bar).all(axis=1)).sum())
