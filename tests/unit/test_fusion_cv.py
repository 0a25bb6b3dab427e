"""Fusion variants and the cross-validation used to choose them (bench/cv.py)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from paperdesk.bench import cv, cv_report
from paperdesk.core.search import fusion
from paperdesk.core.search.embedder import DIM
from paperdesk.core.search.vectors import VectorIndex


def _runs(rng: np.random.Generator, n: int = 30) -> tuple[list[tuple[int, float]], list[tuple[int, float]]]:
    kw_ids = rng.choice(60, size=n, replace=False)
    vec_ids = rng.choice(60, size=n, replace=False)
    kw = sorted(((int(i), float(s)) for i, s in zip(kw_ids, rng.gamma(2.0, 5.0, n))), key=lambda x: -x[1])
    vec = sorted(((int(i), float(s)) for i, s in zip(vec_ids, rng.uniform(0.1, 0.8, n))), key=lambda x: -x[1])
    return kw, vec


def test_z_score_and_min_max_scale_extra_scores_with_the_lists_statistics():
    ranking = [(1, 10.0), (2, 6.0), (3, 2.0)]
    z = fusion.z_score(ranking, {9: 6.0})
    assert z[2] == pytest.approx(0.0) and z[9] == pytest.approx(0.0) and z[1] > 0 > z[3]
    m = fusion.min_max(ranking, {9: 0.0})
    assert m[1] == 1.0 and m[3] == 0.0 and m[9] == pytest.approx(-0.25)
    assert fusion.z_score([(1, 3.0), (2, 3.0)]) == {1: 0.0, 2: 0.0}


def test_missing_items_get_the_lists_floor_unless_an_exact_score_is_given():
    kw = [(1, 5.0), (2, 1.0)]
    vec = [(3, 0.9), (2, 0.5), (4, 0.1)]
    fused = dict(fusion.convex(kw, vec, 0.5, "zscore"))
    floor = min(fusion.z_score(vec).values())
    assert fused[1] == pytest.approx(0.5 * floor + 0.5 * fusion.z_score(kw)[1])
    filled = dict(fusion.convex(kw, vec, 0.5, "zscore", {1: 0.9}))
    assert filled[1] > fused[1]  # an exact cosine as high as the best vector hit lifts it


def test_query_alpha_leans_on_keywords_when_bm25_is_confident():
    confident = [(1, 30.0)] + [(i, 5.0 + 0.01 * i) for i in range(2, 11)]
    flat = [(i, 10.0 - 0.1 * i) for i in range(1, 11)]
    assert fusion.keyword_confidence(confident) > fusion.keyword_confidence(flat)
    assert fusion.query_alpha(0.5, confident, 0.2, 2.0) < 0.5 < fusion.query_alpha(0.5, flat, 0.2, 2.0)
    assert fusion.query_alpha(0.5, confident, 0.0, 1.5) == 0.5
    assert 0.0 <= fusion.query_alpha(0.5, confident, 10.0, 0.0) <= 1.0


def test_query_alpha_leans_on_vectors_when_the_top_cosine_is_high():
    close = [(1, 0.85), (2, 0.6)]
    far = [(1, 0.45), (2, 0.4)]
    kw = [(i, 10.0 - 0.1 * i) for i in range(1, 11)]
    assert fusion.vector_confidence(close) > 0 > fusion.vector_confidence(far)
    assert fusion.query_alpha(0.5, kw, 0.0, 3.0, far, 0.2) < 0.5 < fusion.query_alpha(0.5, kw, 0.0, 3.0, close, 0.2)
    assert fusion.query_alpha(0.5, kw, 0.0, 3.0, close, 0.0) == 0.5
    assert fusion.query_alpha(0.5, kw, 0.0, 3.0, [], 0.3) == 0.5  # no vector hits: nothing to go on
    assert fusion.query_alpha(0.9, kw, 0.0, 3.0, close, 5.0) == 1.0


def test_the_ranker_uses_the_vector_shift_as_the_cv_grid_does(tmp_path: Path):
    from paperdesk.core.search.hybrid import HybridRanker
    from paperdesk.core.search.keyword import KeywordDoc, KeywordIndex

    rng = np.random.default_rng(5)
    words = ["alpha", "beta", "gamma", "delta", "omega", "sigma", "kappa", "theta"]
    keyword = KeywordIndex(tmp_path / "kw")
    keyword.replace_papers({"p": [KeywordDoc(i, "p", "", "", " ".join(rng.choice(words, 12))) for i in range(40)]})
    matrix = rng.standard_normal((40, DIM)).astype(np.float32)
    matrix /= np.linalg.norm(matrix, axis=1, keepdims=True)
    vectors = VectorIndex(tmp_path / "vec")
    vectors.set_all(range(40), matrix)
    query = matrix[3] + 0.3 * matrix[7]
    query /= np.linalg.norm(query)
    ranker = HybridRanker(keyword, vectors, lambda _q: query, "convex", alpha=0.5, candidates=40, norm="zscore",
                          alpha_beta=0.3)
    kw, vec = keyword.search("alpha kappa", 40), vectors.search(query, 40)
    items = np.array(sorted({i for i, _ in kw} | {i for i, _ in vec}), dtype=np.int64)
    a = min(1.0, max(0.0, 0.5 + 0.3 * fusion.vector_confidence(vec)))
    expected = cv._top10(items, a * cv._scaled(vec, items, "zscore") + (1 - a) * cv._scaled(kw, items, "zscore"))
    assert [r.chunk_id for r in ranker.rank("alpha kappa", 10)] == expected
    assert a > 0.5  # the query is close to chunk 3, so the vector side got more weight


@pytest.mark.parametrize("norm", ["minmax", "zscore"])
def test_cv_grid_fusion_matches_the_core_fusion(norm: str):
    rng = np.random.default_rng(3)
    for _ in range(20):
        kw, vec = _runs(rng)
        items = np.array(sorted({i for i, _ in kw} | {i for i, _ in vec}), dtype=np.int64)
        extra = {i: float(rng.uniform(0, 0.5)) for i, _ in kw if i not in dict(vec)}
        for alpha in (0.2, 0.5, 0.8):
            fused = alpha * cv._scaled(vec, items, norm, extra) + (1 - alpha) * cv._scaled(kw, items, norm)
            expected = [i for i, _ in fusion.convex(kw, vec, alpha, norm, extra)[:10]]
            assert cv._top10(items, fused) == expected


def test_folds_are_disjoint_and_cover_every_query():
    folds = cv.make_folds(94, 5, seed=0)
    joined = np.concatenate(folds)
    assert sorted(joined.tolist()) == list(range(94))
    assert [len(f) for f in folds] == [19, 19, 19, 19, 18]


def test_cross_validation_chooses_on_training_folds_and_scores_the_held_out_one():
    # Row 0 is best on queries 0-4, row 1 on the rest: the fold holding 0-4 must pick row 1.
    scores = np.array([[1.0] * 5 + [0.0] * 20, [0.5] * 25])
    folds = [np.arange(0, 5), np.arange(5, 15), np.arange(15, 25)]
    held, chosen = cv.cross_validate(scores, folds)
    assert chosen == [1, 1, 1]
    assert held == [0.5, 0.5, 0.5]
    held, chosen = cv.cross_validate(scores, folds, allowed=np.array([True, False]))
    assert chosen == [0, 0, 0] and held == [1.0, 0.0, 0.0]


def test_ndcg_at_10():
    assert cv.ndcg10([5, 1, 2], {5: 1}) == 1.0
    assert cv.ndcg10([1, 5], {5: 1}) == pytest.approx(1 / np.log2(3))
    assert cv.ndcg10([1, 2], {}) == 0.0


def ANY(_setting: cv.Setting) -> bool:
    return True


def test_report_flags_a_fold_where_hybrid_loses():
    settings = [cv.Setting("plain", 20, "rrf", rrf_k=60), cv.Setting("plain", 20, "zscore", 0.5)]
    scores = np.array([[0.6] * 10, [0.9] * 9 + [0.0]])
    rep = cv_report.report(settings, scores, {"plain": np.full(10, 0.7)}, np.full(10, 0.5), k=5, family=ANY)
    assert rep["keyword"]["mean"] == pytest.approx(0.7)
    assert rep["winner"]["fusion"] == "zscore"
    assert rep["hybrid_beats_both_every_fold"] is False  # the fold with the 0.0 query
    assert set(rep["held_out_by_family"]) >= {"rrf", "convex z-score"}


def test_vector_scores_of_ids_in_any_order(tmp_path: Path):
    rng = np.random.default_rng(0)
    matrix = rng.standard_normal((50, DIM)).astype(np.float32)
    matrix /= np.linalg.norm(matrix, axis=1, keepdims=True)
    index = VectorIndex(tmp_path)
    ids = rng.permutation(np.arange(100, 150))
    index.set_all(ids, matrix)
    query = matrix[7]
    got = index.scores_of(query, [int(ids[7]), int(ids[3]), 999])
    assert got[0] == pytest.approx(1.0, abs=1e-5)
    assert got[1] == pytest.approx(float(matrix[3] @ query), abs=1e-5)
    assert np.isnan(got[2])
    index.replace([999], matrix[:1], remove_ids=[int(ids[3])])
    again = index.scores_of(query, [999, int(ids[3])])
    assert again[0] == pytest.approx(float(matrix[0] @ query), abs=1e-5) and np.isnan(again[1])


def test_maximin_choice_prefers_the_setting_that_wins_every_fold_over_the_best_mean():
    # 10 queries, 5 folds of 2. Row 0 has the best mean but loses two folds badly (so with either held
    # out, the other is among the training folds); row 1 edges out both single methods (0.70) everywhere.
    big = [0.99] * 10
    folds = cv.make_folds(10, 5)
    for q in [*folds[0], *folds[1]]:
        big[q] = 0.30
    steady = [0.72] * 10
    settings = [cv.Setting("plain", 20, "zscore", 0.5), cv.Setting("plain", 20, "minmax", 0.5)]
    scores = np.array([big, steady])
    rep = cv_report.report(settings, scores, {"plain": np.full(10, 0.7)}, np.full(10, 0.7), k=5, family=ANY)
    assert rep["hybrid_beats_both_every_fold"] is False  # the mean picks row 0, which loses fold 1
    robust = rep["hybrid_maximin"]
    assert robust["folds_won"] == 5 and robust["per_fold"] == [0.72] * 5
    assert all("minmax" in label for label in robust["chosen"])
    assert rep["settings_winning_every_fold_in_sample"] == 1


def test_the_hybrid_row_chooses_within_the_family_and_the_full_grid_is_reported_beside_it():
    # Row 0 (rrf, outside the family) is best on every query; row 1 is the family's only member.
    settings = [cv.Setting("plain", 200, "rrf", rrf_k=60), cv.Setting("plain", 200, "minmax", 0.5, fill=True)]
    assert [cv.in_family(s) for s in settings] == [False, True]
    scores = np.array([[0.9] * 10, [0.8] * 10])
    rep = cv_report.report(settings, scores, {"plain": np.full(10, 0.7)}, np.full(10, 0.6), k=5, splits=3)
    assert rep["hybrid"]["per_fold"] == [0.8] * 5 and rep["hybrid"]["chosen_among"] == 1
    assert all("minmax" in label for label in rep["hybrid"]["chosen"])
    assert rep["winner"]["fusion"] == "minmax" and rep["hybrid_beats_both_every_fold"] is True
    assert rep["hybrid_full_grid"]["per_fold"] == [0.9] * 5 and rep["hybrid_full_grid"]["folds_won"] == 5
    assert rep["repeated"]["family"] == {"splits": 3, "folds_won": 15, "folds": 15, "splits_won_on_every_fold": 3,
                                         "mean_held_out": 0.8}
    with pytest.raises(ValueError):
        cv_report.report(settings[:1], scores[:1], {"plain": np.full(10, 0.7)}, np.full(10, 0.6), k=5)


def test_repeated_cv_counts_the_folds_each_split_loses():
    # Query 0 is a loss for the hybrid (0.0 against 0.7 for both): whichever fold holds it loses, in every split.
    scores = np.array([[0.0] + [0.75] * 9])
    rep = cv_report.repeated(scores, np.array([[0.7] * 10]), np.full(10, 0.7), None, k=5, splits=4)
    assert rep["folds_won"] == 4 * 4 and rep["folds"] == 20 and rep["splits_won_on_every_fold"] == 0
