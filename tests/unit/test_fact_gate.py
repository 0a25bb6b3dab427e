"""The fact gate: a sentence whose numbers, names or DOIs its passage does not state is never passed on."""

from __future__ import annotations

from paperdesk.core.agents.fact_gate import FactGate, unstated

PASSAGES = ["We conducted a lab study (N=10) in which CiteSee was compared against three baselines.",
            "Each participant was compensated $35 USD. The study took around 1 hour."]


def _stream(gate: FactGate, text: str) -> None:
    for i, word in enumerate(text.split(" ")):  # token by token, as a model streams
        gate.feed(word if i == 0 else " " + word)


def test_unstated_facts_are_numbers_names_and_dois_absent_from_the_sources() -> None:
    assert unstated("CiteSee was compared against three baselines [1].", PASSAGES[:1]) == []
    assert unstated("It had 40 participants.", PASSAGES) == ["40"]
    assert unstated("It appeared in SQuALITY.", PASSAGES) == ["SQuALITY"]
    assert "10.3748/squality.2021.06" in unstated("See https://doi.org/10.3748/squality.2021.06.", PASSAGES)
    assert unstated("Ten people in all.", PASSAGES) == []  # "N=10" states ten
    assert unstated("How many of the 10 took part?", [], question="the 10 participants") == []


def test_a_figure_more_precise_than_its_source_is_unstated() -> None:
    # "1.0" equals the "1" of a label, but no passage writes it: a made-up estimate
    assert unstated("The shape estimate is 1.0 and the scale 24.0 [1].",
                    ["Figure 1 shows the fit to 24 plots."]) == ["1.0", "24.0"]
    assert unstated("The ratio is 0.69 [1].", ["The ratios are 0.690 and 0.709."]) == []  # fewer places: stated
    assert unstated("It took 1.5 hours [1].", ["It took 1.50 hours."]) == []
    assert unstated("About 1,200.5 km.", ["1,200.50 km in all"]) == []


def test_a_cited_sentence_must_find_its_facts_in_the_passage_it_cites() -> None:
    gate = FactGate(PASSAGES)
    assert gate.check("Participants were paid $35 [2].") == []
    assert gate.check("Participants were paid $35 [1].") == ["35"]  # the number is in [2], not [1]
    assert gate.check("Participants were paid $35.") == []  # uncited: any passage may state it


def test_the_stream_withholds_unsupported_sentences_and_passes_the_rest() -> None:
    shown: list[str] = []
    gate = FactGate(PASSAGES, emit=shown.append)
    _stream(gate, "CiteSee beat three baselines [1]. It was published in the journal SQuALITY in 2021 [1]. "
                  "Each participant got $35 [2].")
    text = gate.close()
    streamed = "".join(shown)
    assert streamed == text == "CiteSee beat three baselines [1]. Each participant got $35 [2]."
    assert [d.missing for d in gate.dropped] == [["2021", "SQuALITY"]]


def test_nothing_is_shown_before_the_sentence_is_complete() -> None:
    shown: list[str] = []
    gate = FactGate(PASSAGES, emit=shown.append)
    _stream(gate, "Each participant got $35")
    assert shown == []
    gate.feed(" [2]. More")
    assert "".join(shown) == "Each participant got $35 [2]."


def test_reject_names_other_reasons() -> None:
    gate = FactGate(PASSAGES, reject=lambda s: "echoes the prompt" if s.strip().startswith("Source") else None)
    _stream(gate, "Source 1 (CiteSee, page 3): text. CiteSee had three baselines.")
    assert gate.close() == "CiteSee had three baselines."
    assert gate.dropped[0].missing == ["echoes the prompt"]


def test_a_miscounted_citation_moves_to_the_passage_that_states_the_facts() -> None:
    shown: list[str] = []
    gate = FactGate(PASSAGES, emit=shown.append)
    _stream(gate, "Each participant was compensated $35 USD [1]. CiteSee was compared against 7 baselines [2].")
    assert gate.close() == "".join(shown) == "Each participant was compensated $35 USD [2]."
    assert gate.recited == 1 and [d.missing for d in gate.dropped] == [["7", "CiteSee"]]  # 7: nowhere


def test_a_citation_after_the_full_stop_stays_with_its_sentence() -> None:
    gate = FactGate(PASSAGES)
    for piece in ("Each participant got $35 USD", ".", " [", "1", "]"):
        gate.feed(piece)
    assert gate.close() == "Each participant got $35 USD. [2]" and gate.recited == 1


def test_recite_keeps_one_marker_where_the_first_stood() -> None:
    from paperdesk.core.agents.fact_gate import recite

    assert recite("Paid $35 [1].", 2) == "Paid $35 [2]."
    assert recite("A [2] and B [3][4].", 1) == "A [1] and B."


def test_an_echoed_passage_label_becomes_its_marker_before_the_check() -> None:
    from types import SimpleNamespace

    from paperdesk.core.agents.answer_prompt import label_citer

    hits = [SimpleNamespace(title="PaperMage: A Toolkit", page_start=4),
            SimpleNamespace(title="CiteSee: Augmenting Citations", page_start=9)]
    cite = label_citer(hits)
    assert cite("pdfplumber (from PaperMage, p. 4)") == "pdfplumber [1]"
    assert cite("Ten took part (CiteSee, page 9).") == "Ten took part [2]."
    assert cite("Not a source (CiteSee, p. 3).") == "Not a source (CiteSee, p. 3)."  # no passage has that page
    gate = FactGate(["papermage runs PDF2TextParser (using pdfplumber)"], rewrite=cite)
    for piece in ("pdfplumber (from PaperMage, p", ".", " 4)"):  # "p." does not end the sentence
        gate.feed(piece)
    assert gate.close() == "pdfplumber [1]"


def test_a_sentence_cut_off_at_the_token_limit_is_dropped_after_one_that_passed() -> None:
    gate = FactGate(PASSAGES)
    _stream(gate, "The study took around 1 hour [2]. Each participant was compensated $35 USD and, e")
    assert gate.close(cut=True) == "The study took around 1 hour [2]."
    assert gate.dropped[-1].missing == ["cut off at the writer's token limit"]


def test_a_cut_answer_keeps_its_only_sentence_and_a_finished_last_one() -> None:
    alone = FactGate(PASSAGES)
    _stream(alone, "The study took around 1 hour [2] and each")
    assert alone.close(cut=True) == "The study took around 1 hour [2] and each"  # nothing else to show
    finished = FactGate(PASSAGES)
    _stream(finished, "The study took around 1 hour [2]. Each participant was compensated $35 USD [2].")
    assert finished.close(cut=True).endswith("compensated $35 USD [2].")
    assert finished.dropped == []
