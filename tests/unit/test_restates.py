"""A sentence that only restates the question is not an answer, even with a citation."""

from paperdesk.core.agents.restates import drop_restatements, restates


def test_a_lead_in_that_names_the_sources_and_the_question_restates_it():
    q = "How do these papers evaluate summaries?"
    assert restates("Based on the information provided in the passages, here's a summary of how these papers "
                    "evaluate summaries: [8]", q)
    assert restates("The papers evaluate summaries [2].", q)


def test_a_sentence_with_a_new_word_or_a_number_is_kept():
    q = "How do these papers evaluate summaries?"
    assert not restates("Summaries are evaluated with ROUGE against expert references [3].", q)
    assert not restates("The papers evaluate 40 summaries [3].", q)


def test_figures_the_question_gives_are_not_an_answer():
    q = "In the mixture example with k = 1 to 5 components, what BIC value is obtained for each?"
    assert restates("The BIC value is obtained for each of the k = 1 to 5 components [1].", q)
    assert not restates("The BIC value is 1302.5 for k = 2 [1].", q)


def test_a_yes_no_answer_that_repeats_the_question_is_an_answer():
    q = "Does the package use the EM algorithm?"
    assert not restates("The package uses the EM algorithm [1].", q)
    assert restates("Based on the passages, the package uses the EM algorithm: [1]", q)


def test_drop_restatements_keeps_the_others_in_order():
    q = "How do the packages estimate parameters?"
    text = "Here is how the packages estimate parameters [1]. One uses maximum likelihood [2]. Another uses EM [3]."
    kept, dropped = drop_restatements(text, q)
    assert kept == "One uses maximum likelihood [2]. Another uses EM [3]."
    assert dropped == ["Here is how the packages estimate parameters [1]."]


def test_a_restatement_followed_by_a_lower_case_sentence_is_still_found():
    kept, dropped = drop_restatements("The alpha packages use tests [1]. alpha, in its own words: it tests 4 things [2].",
                                      "How do the alpha packages use tests?")
    assert dropped == ["The alpha packages use tests [1]."] and kept.startswith("alpha, in its own words")
