"""The `cv` section of `bench retrieval`: the cross-validated choice, what it is compared with, and
how much one fold split's verdict can be trusted (`repeated`). The grid and the CV itself are in cv.py."""

from __future__ import annotations

from dataclasses import asdict
from typing import Any, Sequence

import numpy as np

from paperdesk.bench.cv import (DEPTHS, Setting, always_winning, cross_validate, cross_validate_robust, in_family,
                                make_folds)


def repeated(scores: np.ndarray, kw_matrix: np.ndarray, vector_only: np.ndarray, allowed: np.ndarray | None,
             k: int = 5, splits: int = 20) -> dict[str, Any]:
    """The same CV over `splits` different fold assignments (seeds 0..splits-1): how often the hybrid beats
    both single methods on a held-out fold, in how many splits on every fold, and the held-out mean. One
    split's per-fold wins hang on a query or two (a 19-query fold moves 0.016 when one query's relevant
    abstract drops from rank 1 to 2); this says how much."""
    won = total = every = 0
    means = []
    for seed in range(splits):
        folds = make_folds(scores.shape[1], k, seed)
        held, _ = cross_validate(scores, folds, allowed)
        bar = np.maximum(cross_validate(kw_matrix, folds)[0], [vector_only[f].mean() for f in folds])
        wins = int((np.asarray(held) > bar).sum())
        won, total, every = won + wins, total + len(folds), every + (wins == len(folds))
        means.append(float(np.mean(held)))
    return {"splits": splits, "folds_won": won, "folds": total, "splits_won_on_every_fold": every,
            "mean_held_out": round(float(np.mean(means)), 4)}


def report(settings: list[Setting], scores: np.ndarray, keyword_only: dict[str, np.ndarray],
           vector_only: np.ndarray, k: int = 5, seed: int = 0, family=in_family, splits: int = 20) -> dict[str, Any]:
    """The `cv` section: per-fold and mean held-out nDCG@10, the winner, and what each family scores.

    `hybrid` chooses within `family` (a predicate on settings); `hybrid_full_grid` and `hybrid_maximin`
    choose among every setting, for comparison."""
    in_fam = np.array([bool(family(s)) for s in settings])
    if not in_fam.any():
        raise ValueError("no setting of the grid is in the chosen family")
    folds = make_folds(scores.shape[1], k, seed)
    kw_names = list(keyword_only)
    kw_matrix = np.array([keyword_only[n] for n in kw_names])
    kw_held, kw_chosen = cross_validate(kw_matrix, folds)
    hy_held, hy_chosen = cross_validate(scores, folds, in_fam)
    full_held, full_chosen = cross_validate(scores, folds)
    vec_held = [float(vector_only[f].mean()) for f in folds]
    ro_held, ro_chosen = cross_validate_robust(scores, folds, kw_matrix, vector_only)
    rows = np.flatnonzero(in_fam)
    winner = int(rows[int(np.argmax(scores[rows].mean(axis=1)))])  # the default: best on all dev queries
    families: dict[str, np.ndarray] = {
        "rrf": np.array([s.fusion == "rrf" for s in settings]),
        "convex min-max": np.array([s.fusion == "minmax" for s in settings]),
        "convex z-score": np.array([s.fusion == "zscore" for s in settings]),
        "no query-dependent alpha": np.array([s.gamma == 0 and s.beta == 0 for s in settings]),
        "alpha by keyword confidence": np.array([s.gamma > 0 and s.beta == 0 for s in settings]),
        "alpha by vector confidence": np.array([s.beta > 0 and s.gamma == 0 for s in settings]),
        "alpha by both": np.array([s.beta > 0 and s.gamma > 0 for s in settings]),
        "convex, missing vector scores at the floor": np.array([s.fusion != "rrf" and not s.fill for s in settings]),
        "convex, missing vector scores filled exactly": np.array([s.fill for s in settings]),
    }
    for depth in DEPTHS:
        families[f"depth {depth}"] = np.array([s.depth == depth for s in settings])
    for name in kw_names:
        families[f"keyword {name}"] = np.array([s.keyword == name for s in settings])
    family_scores = {}
    for name, mask in families.items():
        if mask.any():
            held, _ = cross_validate(scores, folds, mask)
            family_scores[name] = round(float(np.mean(held)), 4)

    def beats(held: Sequence[float]) -> int:
        return sum(h > max(a, b) for h, a, b in zip(held, kw_held, vec_held))

    return {
        "folds": k,
        "seed": seed,
        "queries_per_fold": [len(f) for f in folds],
        "keyword": {"per_fold": [round(x, 4) for x in kw_held], "mean": round(float(np.mean(kw_held)), 4),
                    "chosen": [kw_names[i] for i in kw_chosen]},
        "vector": {"per_fold": [round(x, 4) for x in vec_held], "mean": round(float(np.mean(vec_held)), 4)},
        "hybrid": {"per_fold": [round(x, 4) for x in hy_held], "mean": round(float(np.mean(hy_held)), 4),
                   "chosen": [settings[i].label() for i in hy_chosen], "folds_won": beats(hy_held),
                   "chosen_among": int(in_fam.sum())},
        "hybrid_beats_both_every_fold": beats(hy_held) == len(folds),
        "hybrid_full_grid": {"per_fold": [round(x, 4) for x in full_held], "mean": round(float(np.mean(full_held)), 4),
                             "chosen": [settings[i].label() for i in full_chosen], "folds_won": beats(full_held)},
        "hybrid_maximin": {"per_fold": [round(x, 4) for x in ro_held], "mean": round(float(np.mean(ro_held)), 4),
                           "chosen": [settings[i].label() for i in ro_chosen], "folds_won": beats(ro_held)},
        "repeated": {"family": repeated(scores, kw_matrix, vector_only, in_fam, k, splits),
                     "full_grid": repeated(scores, kw_matrix, vector_only, None, k, splits)},
        "settings_winning_every_fold_in_sample": always_winning(scores, folds, kw_held, vec_held),
        "winner": {**asdict(settings[winner]), "dev_ndcg@10": round(float(scores[winner].mean()), 4)},
        "held_out_by_family": family_scores,
        "settings_tried": len(settings),
    }
