"""Grounding generated text: citation checks, attribution, loop and copy removal, extraction."""

from paperdesk.core.agents.attribution import (
    drop_copied,
    extract,
    ground,
    split_sentences,
    strip_echo,
    trim_loops,
    usable,
)
import numpy as np
from toy_encoders import BagOfWords

bag_of_words = BagOfWords(256)  # a deterministic stand-in encoder for these logic tests


PASSAGES = ["readers lose track of citations they have already seen across papers",
            "highlighting seen citations helped participants find relevant work faster"]


def test_ground_keeps_supported_citations_removes_wrong_ones_and_attributes():
    matrix = bag_of_words(PASSAGES)
    text = ("Readers lose track across papers [2]. Highlighting seen citations helped participants [2]. "
            "Bananas grow in warm countries.")
    result = ground(text, matrix, bag_of_words, PASSAGES)
    assert result.removed == [2]  # sentence one shares nothing with passage 2
    assert result.added == [1]
    assert result.text == ("Readers lose track across papers [1]. Highlighting seen citations helped "
                           "participants [2]. Bananas grow in warm countries.")


def test_out_of_range_citations_are_removed():
    matrix = bag_of_words(PASSAGES)
    result = ground("Readers lose track of citations [7].", matrix, bag_of_words, PASSAGES)
    assert result.removed == [7] and result.text == "Readers lose track of citations [1]."


def test_trim_loops_cuts_a_repeated_phrase():
    looped = "the challenges are: 1) the complexity of the information, 2) the complexity of the information, 3)"
    assert trim_loops(looped) == "the challenges are: 1) the complexity of the information, 2)."
    assert trim_loops("no loop here at all.") == "no loop here at all."


def test_trim_loops_keeps_a_repeat_its_sources_state():
    source = "Each unit counts the number of cells above its mark minus the number of cells below it."
    text = "Each unit counts the number of cells above its mark minus the number of cells below it [1]."
    assert trim_loops(text) == "Each unit counts the number of cells above its mark minus."
    assert trim_loops(text, sources=[source]) == text
    assert trim_loops(text + " Then the number of cells again.", sources=[source]) == text + " Then."


def test_drop_copied_removes_sentences_taken_from_the_examples():
    examples = "The passages show that nitrogen-fixing bacteria raised wheat yields by 12% in dry plots [1]."
    text = "Bacteria raised wheat yields by 12% in dry plots. Readers lose track of citations."
    assert drop_copied(text, examples) == "Readers lose track of citations."


def test_echo_and_usability():
    assert strip_echo("Source 3 (CiteSee, page 2): text\nQ: what\nReaders forget citations.") == "Readers forget citations."
    assert not usable("[1] 4) 5 3.1.1")
    assert usable("readers forget which citations they saw")


def test_extract_quotes_the_closest_prose_sentences_with_citations():
    passages = ["Zejiang Shen, Tal August {zjshen}@mit.edu ABSTRACT. Readers lose track of the citations they have "
                "already seen across many papers.", "Highlighting seen citations helped participants find relevant "
                "work faster in the study."]
    question = bag_of_words(["do readers lose track of citations they have seen"])[0]
    quoted = extract(question, passages, bag_of_words, limit=1)
    assert quoted == "Readers lose track of the citations they have already seen across many papers [1]."
    assert split_sentences("One. Two! Three?") == ["One.", "Two!", "Three?"]


def test_a_sentence_two_overlapping_chunks_space_differently_is_quoted_once():
    passages = ["The covariate with the largest association to the bird count is the canopy cover (P =0.002).",
                "The covariate with the largest association to the bird count is the canopy cover (P = 0.002).",
                "Sunny stands with little canopy cover held more birds than darker stands."]
    question = bag_of_words(["which covariate has the largest association to the bird count"])[0]
    quoted = extract(question, passages, bag_of_words, limit=3)
    assert quoted.count("largest association") == 1
    assert "Sunny stands" in quoted


def test_a_code_session_is_never_quoted_as_the_closest_sentence():
    passages = ["Below is the call that fits the serving size: R> fit <- fitdist(serving, \"weibull\") R> summary(fit) "
                "the fitting of the distribution by maximum likelihood gives the serving size parameters.",
                "In Python the model fits the serving size: >>> model = fit(data) the distribution by maximum "
                "likelihood of the serving size.",
                "The serving sizes were fitted with a Weibull distribution by maximum likelihood."]
    question = bag_of_words(["which distribution was fitted to the serving size by maximum likelihood"])[0]
    quoted = extract(question, passages, bag_of_words, limit=3)
    assert quoted == "The serving sizes were fitted with a Weibull distribution by maximum likelihood [3]."


def test_a_citation_moves_to_the_passage_that_states_the_sentence_when_the_cited_one_shares_no_words() -> None:
    from paperdesk.core.agents.attribution import ground

    passages = ["An instance of model generation could be relatively short, e.g., one or two sentences.",
                "Participants included two writers who edited summaries for 40 new cases."]
    vectors = np.array([[1.0, 0.0], [0.0, 1.0]])
    sentence_vectors = {"It should be relatively short, e.g., one or two sentences.": [0.6, 0.8]}

    def encode(texts):
        return np.array([sentence_vectors.get(t.strip(), [0.7, 0.7]) for t in texts])

    grounded = ground("It should be relatively short, e.g., one or two sentences [2].", vectors, encode, passages)
    assert grounded.text == "It should be relatively short, e.g., one or two sentences [1]."


def test_a_citation_written_after_the_full_stop_belongs_to_the_sentence_and_facts_anchor_it() -> None:
    from paperdesk.core.agents.attribution import ground

    passages = ["SentencePredictor wraps sciSpaCy (Neumann et al., 2019) and PySBD (Sadvilkar and Neumann, 2020)."]
    encode = lambda texts: np.array([[0.0, 1.0] for _ in texts])  # noqa: E731 - far from the passage in meaning
    grounded = ground("sciSpaCy (Neumann et al., 2019) and PySBD (Sadvilkar and Neumann, 2020). [1]",
                      np.array([[1.0, 0.0]]), encode, passages)
    assert grounded.text == "sciSpaCy (Neumann et al., 2019) and PySBD (Sadvilkar and Neumann, 2020) [1]."
    assert grounded.removed == []


def test_a_full_stop_with_superscript_reference_numbers_ends_the_sentence():
    from paperdesk.core.agents.attribution import split_sentences

    text = "Popular methods are MEG and CF-Explainer.69,104,105 The descriptor method fits a model. Version 2.1 is out."
    assert split_sentences(text) == ["Popular methods are MEG and CF-Explainer.69,104,105",
                                     "The descriptor method fits a model.", "Version 2.1 is out."]


def test_figures_alone_each_from_the_passage_it_cites_keep_their_citations() -> None:
    """A two-part answer of figures only ("61% [1] and 48% [2].") is held to its cited passages together: each
    states one figure, and neither the sentence's meaning nor any word ties it to them."""
    passages = ["The first survey counted a share of 61% of the sampled plots as flooded.",
                "A stricter count by the second instrument put it at 48% of the plots."]
    encode = lambda texts: np.array([[0.0, 0.0, 1.0] for _ in texts])  # noqa: E731 - far from both in meaning
    vectors = np.array([[1.0, 0.0, 0.0], [0.0, 1.0, 0.0]])
    grounded = ground("61% [1] and 48% [2].", vectors, encode, passages)
    assert grounded.text == "61% [1] and 48% [2]." and grounded.removed == [] and grounded.numbers_flagged == []
    # a figure neither passage states loses the citations; and one cited passage must state a figure of its own
    assert ground("61% [1] and 37% [2].", vectors, encode, passages).removed == [1, 2]
    third = passages + ["The plots lie along the river's lower course."]
    vectors3 = np.array([[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, -1.0]])
    assert 3 in ground("61% [1] and 48% [2] [3].", vectors3, encode, third).removed


def test_a_lone_figure_far_from_its_passage_in_meaning_is_not_held_up_by_it() -> None:
    passages = ["A stricter count by the second instrument put it at 48% of the plots."]
    encode = lambda texts: np.array([[0.0, 1.0] for _ in texts])  # noqa: E731
    vectors = np.array([[1.0, 0.0]])
    assert ground("48% [1].", vectors, encode, passages).removed == [1]  # nothing says what it counts


def test_a_sentence_citing_two_passages_is_held_to_what_they_state_together() -> None:
    passages = ["The first survey counted 61% of the sampled plots as flooded.",
                "The second instrument counted flooded plots more strictly, at 48%."]
    encode = lambda texts: np.array([[0.0, 0.0, 1.0] for _ in texts])  # noqa: E731
    vectors = np.array([[1.0, 0.0, 0.0], [0.0, 1.0, 0.0]])
    text = "The surveys counted flooded plots at 61% [1] and at 48% [2]."
    grounded = ground(text, vectors, encode, passages)
    assert grounded.text == text and grounded.numbers_flagged == []
