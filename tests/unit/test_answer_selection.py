"""Selecting evidence before phrasing: candidates, the reply's parsing, the arranged passages, the direction
check and the quoted answer (pure functions; the model-driven path is covered with a real GGUF elsewhere)."""

from __future__ import annotations

from paperdesk.core.agents import picked_answer, selection
from paperdesk.core.library.library import Hit


def hit(n: int, title: str = "Tide Gauges: a study", page: int = 2) -> Hit:
    return Hit(f"paper{n}", title, n, page, page, "Results", "", 1.0, None, None)


def test_candidates_number_each_window_sentence_and_keep_every_passage_when_cut():
    windows = ["Gauges were read hourly at four harbours. Readings drifted by 2 mm a year. The drift was linear.",
               "Wave height was logged on 30 days … Storm days were left out of the fit."]
    found = selection.candidates(windows)
    assert [(c.hit, c.text) for c in found] == [
        (0, "Gauges were read hourly at four harbours."), (0, "Readings drifted by 2 mm a year."),
        (0, "The drift was linear."), (1, "Wave height was logged on 30 days"),
        (1, "Storm days were left out of the fit.")]
    few = selection.candidates(windows, limit=3)  # a round over the passages: each keeps its first sentences
    assert {c.hit for c in few} == {0, 1} and len(few) == 3


def test_the_reply_is_read_as_numbers_in_range_and_prose_is_not_a_pick():
    assert selection.parse('{"answer": [3, 1, 3]}', 4) == [2, 0]
    assert selection.parse('{"answer": []}', 4) == []
    assert selection.parse('{"answer": [9, 2]}', 4) == [1]  # out of range: ignored
    assert selection.parse("Sentences [2, 4] state it", 4) == [1, 3]
    assert selection.parse("The gauges drifted by 2 mm.", 4) is None  # not a list: the caller answers directly
    assert selection.parse('{"answer": [1, 2, 3, 4]}', 4) == [0, 1, 2]  # at most three


def test_the_grammar_allows_only_listed_numbers_and_an_empty_pick():
    spec = selection.schema(5)["properties"]["answer"]
    assert spec["items"]["enum"] == [1, 2, 3, 4, 5] and spec["maxItems"] == selection.MAX_PICK
    assert "minItems" not in spec  # "none of them" is a valid reply


def test_picked_passages_come_first_cut_to_their_picked_sentences():
    hits = [hit(1), hit(2), hit(3)]
    found = [selection.Candidate(0, "A one."), selection.Candidate(1, "B one."), selection.Candidate(1, "B two."),
             selection.Candidate(2, "C one.")]
    arranged = picked_answer.arrange(selection.Selection(found, [2, 1]), hits, ["wa", "wb", "wc"])
    assert [h.paper_id for h in arranged.hits] == ["paper2", "paper1", "paper3"]
    assert arranged.count == 1 and arranged.texts == ["B two. B one.", "wa", "wc"]
    assert picked_answer.quoted(arranged) == "\u201cB two.\u201d [1] \u201cB one.\u201d [1]"


def test_a_comparison_must_go_the_way_its_sentences_say():
    source = ["Coarse labels had a spread of 18.5 and fine labels 6.8."]
    assert picked_answer.direction_unstated("Coarse labels varied less than fine ones [1].", source)
    assert picked_answer.direction_unstated("Coarse labels varied more than fine ones [1].", source)
    assert picked_answer.direction_unstated("Coarse labels had a spread of 18.5 [1].", source) is None
    stated = ["Yield was lower under irrigation than in dry plots."]
    assert picked_answer.direction_unstated("Irrigated plots gave lower yields [1].", stated) is None
    assert "higher" in picked_answer.direction_unstated("Irrigated plots gave higher yields [1].", stated)
    check = picked_answer.directions(["Sales rose by 4%.", "Costs fell by 2%."])
    assert check("Costs fell by 2% [2].") is None and check("Costs rose by 2% [2].")


def test_a_picked_sentence_is_read_with_its_neighbours_from_the_same_passage():
    found = [selection.Candidate(0, "A one."), selection.Candidate(0, "A two."), selection.Candidate(1, "B one.")]
    assert selection.with_neighbours(found, 1) == "A one. A two."  # B one. is another passage
    assert selection.with_neighbours(found, 2) == "B one."
