"""Research evidence spreads over the papers that fit: each gives its best passage before any gives a second."""

from types import SimpleNamespace

from paperdesk.core.agents.evidence import SPREAD, _spread


def test_each_fitting_paper_gives_its_best_passage_first_then_the_rest_by_fit():
    pool = [SimpleNamespace(paper_id=p) for p in ("a", "a", "a", "b", "c")]
    ranked = [(0.9, 0, "a1"), (0.85, 1, "a2"), (0.8, 2, "a3"), (0.7, 3, "b1"), (0.9 - SPREAD - 0.05, 4, "c1")]
    chosen = _spread(ranked, pool, 0.9, set(), 3)
    assert [text for _, _, text in chosen] == ["a1", "b1", "a2"]  # c fits too far below a to be read


def test_a_named_paper_gives_a_passage_even_when_it_fits_less():
    pool = [SimpleNamespace(paper_id=p) for p in ("a", "a", "c")]
    ranked = [(0.9, 0, "a1"), (0.85, 1, "a2"), (0.2, 2, "c1")]
    assert [t for _, _, t in _spread(ranked, pool, 0.9, {"c"}, 2)] == ["a1", "c1"]
