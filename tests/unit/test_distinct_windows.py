"""An answer's windows never show a sentence twice: neighbouring chunks overlap, and a sentence an earlier
window shows gives its room in a later window to one not yet read (a toy stand-in encoder scores them)."""

from __future__ import annotations

from paperdesk.core.agents import evidence
from test_sentence_reader import _NoEmbedder, _ToyEncoder

QUESTION = "How many ships did the lighthouse keeper count in the harbour?"
SHARED = "The lighthouse keeper counted 412 ships in the harbour."
FIRST = f"Cats sleep a lot during the day. {SHARED}"
# the next chunk starts inside the overlap: the shared sentence, then what the first chunk does not hold
SECOND = f"{SHARED} Most ships were ferries from the harbour on the island. Rain fell in the valley."


def _windows(texts: list[str], distinct: bool) -> list[str]:
    return evidence.windows(_NoEmbedder(), QUESTION, [None] * len(texts), texts, 12, encoder=_ToyEncoder(),
                            distinct=distinct)


def test_a_sentence_an_earlier_window_shows_is_not_shown_again() -> None:
    plain = _windows([FIRST, SECOND], distinct=False)
    assert SHARED in plain[0] and SHARED in plain[1]  # without it, the overlap is read twice
    first, second = _windows([FIRST, SECOND], distinct=True)
    assert SHARED in first
    assert SHARED not in second and "ferries" in second  # its room goes to the sentence not yet read


def test_a_passage_with_nothing_new_gets_an_empty_window() -> None:
    first, repeat = _windows([FIRST, SHARED], distinct=True)
    assert SHARED in first and repeat == ""


def test_the_same_sentence_cut_differently_still_counts_as_shown() -> None:
    # a chunk boundary leaves a sentence's tail and changes spacing and case, not its words
    cut = "counted 412   ships in the harbour. Most ships were ferries from the harbour on the island."
    first, second = _windows([FIRST, cut], distinct=True)
    assert "412" not in second and "ferries" in second


def test_a_sentence_with_other_figures_is_not_taken_for_a_shown_one() -> None:
    other = "The lighthouse keeper counted 98 ships in the harbour."
    first, second = _windows([FIRST, other], distinct=True)
    assert "412" in first and "98 ships" in second
