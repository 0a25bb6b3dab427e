"""The writer's check of an answer against the passages it cites: what it is asked, how its two readings
decide, and when it is not asked at all. The backend here is a stand-in with canned margins
(StandInChecker), not a model: the real writer's check is tested in tests/integration/test_answer_checked.py."""

from paperdesk.core.agents.answer_check import MARGIN_MIN, cited_windows, margin, prompt, stands_at
from paperdesk.core.llm.backend import Capabilities

WINDOWS = ["The first window says 12 runs.", "The second window says nothing of runs.", "A third."]


def stands(backend, question, text, windows) -> bool:
    """Whether the answer stands as `write` decides it: the check's margin, judged by stands_at."""
    return stands_at(margin(backend, question, text, windows))


class StandInChecker:
    """Returns canned margins (fewer when `limit` says time ran out) and records what it was asked."""

    def __init__(self, margins: list[float], judges: bool = True, limit: int | None = None) -> None:
        self.capabilities = Capabilities(judges=judges)
        self.margins, self.limit = margins, limit
        self.asked: list[tuple[str, str, list[str]]] = []

    def yes_margins(self, system, opening, items, cancel=None, seconds=None):
        self.asked.append((system, opening, list(items)))
        return self.margins[: self.limit if self.limit is not None else len(items)]


def test_both_readings_share_the_question_and_show_the_cited_passage_without_its_numbers():
    system, opening, items = prompt("How  many runs?", "It used 12 runs [1].", "The first window says 12 runs.")
    assert "passage" in system and opening == "Question: How many runs?"
    assert len(items) == 2 and all(item.startswith("Passage: The first window says 12 runs.\n") for item in items)
    assert "Proposed answer: It used 12 runs.\n" in items[0] and "Proposed answer" not in items[1]
    assert all(item.rstrip().endswith("Reply yes or no.") for item in items)


def test_only_the_windows_the_answer_cites_are_read_in_number_order():
    assert cited_windows("A [3]. B [1]. C [1].", WINDOWS) == f"{WINDOWS[0]} {WINDOWS[2]}"
    assert cited_windows("Cites one it did not read [7].", WINDOWS) == ""


def test_the_readings_are_summed_and_an_answer_below_the_threshold_does_not_stand():
    low = StandInChecker([MARGIN_MIN / 2 - 0.1, MARGIN_MIN / 2 - 0.1])
    assert margin(low, "How many runs?", "It used 12 runs [1].", WINDOWS) < MARGIN_MIN
    assert not stands(low, "How many runs?", "It used 12 runs [1].", WINDOWS)
    high = StandInChecker([2.0, -2.0 - MARGIN_MIN / 2])
    assert stands(high, "How many runs?", "It used 12 runs [1].", WINDOWS)


def test_the_answer_stands_when_the_check_cannot_be_had():
    no_judging = StandInChecker([-9.0, -9.0], judges=False)
    assert margin(no_judging, "q?", "It used 12 runs [1].", WINDOWS) is None and no_judging.asked == []
    out_of_time = StandInChecker([-9.0, -9.0], limit=1)  # the second reading did not finish
    assert stands(out_of_time, "q?", "It used 12 runs [1].", WINDOWS)
    uncited = StandInChecker([-9.0, -9.0])
    assert stands(uncited, "q?", "It used 12 runs.", WINDOWS) and uncited.asked == []
