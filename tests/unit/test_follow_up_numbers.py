"""A citation follow-up's numbers: the writer's [1], [2] become the numbers the draft gives those passages."""

from types import SimpleNamespace

from paperdesk.core.handlers.follow_up import Renumber, renumber_text, renumbered_sources, writer_question


def _hit(chunk_id: int) -> SimpleNamespace:
    return SimpleNamespace(chunk_id=chunk_id, paper_id="p", title="T", page_start=3, snippet="**a** b")


def test_the_cited_passage_keeps_its_number_and_new_neighbours_follow_the_last() -> None:
    sources = [{"n": 1, "chunk_id": 10}, {"n": 2, "chunk_id": 11}, {"n": 5, "chunk_id": 20}]
    numbers, merged = renumbered_sources(sources, [_hit(20), _hit(11), _hit(21)], 5)
    assert numbers == {1: 5, 2: 2, 3: 6}
    assert [s["n"] for s in merged] == [1, 2, 5, 6] and merged[-1]["chunk_id"] == 21
    assert merged[-1]["quote"] == "a b" and sources[-1] == {"n": 5, "chunk_id": 20}  # the draft's own list unchanged
    assert renumber_text("It says so [1] and more [3].", numbers) == "It says so [5] and more [6]."


def test_streamed_numbers_are_renumbered_across_token_boundaries() -> None:
    out: list[str] = []
    stream = Renumber({1: 5, 2: 7}, out.append)
    for token in ("It says [", "1", "] and [2", "] too [", "x]"):
        stream.feed(token)
    stream.close()
    assert "".join(out) == "It says [5] and [7] too [x]"


def test_the_writer_is_asked_about_its_passage_one() -> None:
    assert writer_question("what does [5] say?") == "what does passage [1] say?"
    assert writer_question("what does the second citation claim") == "what does passage [1] claim"
    assert writer_question("explain that") == "explain that (passage [1])"
