"""The writer's judging of candidate sentences: which it lifts, how the passages are reordered, and when nothing
changes. The backend here is a stand-in with canned margins (StandInJudge), not a model: what a real model's
margins look like is tested in tests/integration/test_yes_margins.py."""

import numpy as np

from paperdesk.core.agents.evidence import Scored, cut
from paperdesk.core.agents.sentence_judge import JUDGE_WEIGHT, judged
from paperdesk.core.llm.backend import Capabilities


class StandInJudge:
    """Answers yes_margins from a table of sentence -> margin (0 for any other) and records what it was asked."""

    capabilities = Capabilities(judges=True)

    def __init__(self, margins: dict[str, float], limit: int | None = None) -> None:
        self.margins = margins
        self.limit = limit  # how many items it scores before "running out of time"
        self.asked: list[list[str]] = []
        self.openings: list[str] = []

    def yes_margins(self, system, opening, items, cancel=None, seconds=None):
        sentences = [item.removeprefix("Sentence: ").split("\n")[0] for item in items]
        self.asked.append(sentences)
        self.openings.append(opening)
        sentences = sentences[: self.limit] if self.limit is not None else sentences
        return [self.margins.get(sentence, 0.0) for sentence in sentences]


def _passages() -> list[Scored]:
    return [Scored(["A topic sentence.", "A neighbour.", "Another aside."], np.array([0.9, 0.2, 0.1]), None),
            Scored(["The value was 42.", "More context here."], np.array([0.7, 0.6]), None)]


def test_the_passage_of_the_sentence_the_writer_says_yes_to_comes_first_and_its_window_shows_it():
    backend = StandInJudge({"More context here.": 6.0, "A topic sentence.": -6.0})
    judged_passages, order = judged(backend, "What was the value?", _passages(), candidates=3)
    assert order == [1, 0]
    assert judged_passages[1].kept == 1 and judged_passages[0].kept == 0
    assert backend.openings == ["Question: What was the value?"]
    first = cut([judged_passages[i] for i in order], words=4)[0]  # room for the best sentence alone, and the pick
    assert first.startswith("The value was 42.") and "More context here." in first


def test_the_scores_and_so_the_windows_best_sentences_stay_the_scorers():
    passages = _passages()
    judged_passages, _ = judged(StandInJudge({"More context here.": 9.0}), "q?", passages, candidates=3)
    assert all(np.array_equal(a.scores, b.scores) for a, b in zip(judged_passages, passages))


def test_only_the_best_candidates_over_all_passages_are_asked():
    backend = StandInJudge({})
    judged(backend, "q?", _passages(), candidates=3)
    assert backend.asked == [["A topic sentence.", "The value was 42.", "More context here."]]


def test_a_lift_is_at_most_the_weight_so_a_sure_no_keeps_a_far_better_sentence_first():
    passages = [Scored(["Far better.", "Judged yes."], np.array([0.9 + JUDGE_WEIGHT, 0.1]), None),
                Scored(["Other."], np.array([0.5]), None)]
    judged_passages, order = judged(StandInJudge({"Far better.": -30.0, "Judged yes.": 30.0}), "q?", passages, 3)
    assert judged_passages[0].kept == 0 and order == [0, 1]


def test_candidates_not_judged_in_time_keep_their_place():
    backend = StandInJudge({"A topic sentence.": 3.0}, limit=1)
    judged_passages, order = judged(backend, "q?", _passages(), candidates=3)
    assert order == [0, 1] and judged_passages[0].kept == 0 and judged_passages[1].kept is None


def test_no_judging_without_the_capability_or_candidates():
    class Plain:
        capabilities = Capabilities()

    passages = _passages()
    for backend, candidates in ((Plain(), 8), (StandInJudge({"The value was 42.": 9.0}), 0)):
        judged_passages, order = judged(backend, "q?", passages, candidates)
        assert order == [0, 1] and [p.kept for p in judged_passages] == [None, None]


def test_nothing_judged_keeps_the_order():
    judged_passages, order = judged(StandInJudge({}, limit=0), "q?", _passages(), candidates=3)
    assert order == [0, 1] and [p.kept for p in judged_passages] == [None, None]
