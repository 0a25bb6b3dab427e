"""second_look.reads_new: an answer from a second, wider reading must rest on a sentence the first lacked."""

from paperdesk.core.agents.second_look import reads_new, resting_sentence

PASSAGE = ("The survey covered forty harbours along the coast. Cranes were inspected every spring. "
           "The heaviest crane lifted 310 tonnes during the trial.")
FIRST = "The survey covered forty harbours along the coast. Cranes were inspected every spring."


def test_the_resting_sentence_holds_most_of_the_answer_words():
    assert resting_sentence("The heaviest crane lifted 310 tonnes [1].", [PASSAGE]).startswith("The heaviest")
    assert resting_sentence("[1].", [PASSAGE]) is None


def test_an_answer_resting_on_a_sentence_the_first_reading_lacked_reads_new():
    assert reads_new("The heaviest crane lifted 310 tonnes [1].", [PASSAGE], FIRST)


def test_an_answer_resting_only_on_what_the_first_reading_held_does_not():
    assert not reads_new("Forty harbours were surveyed along the coast [1].", [PASSAGE], FIRST)
    assert reads_new("Forty harbours were surveyed [1]. The heaviest crane lifted 310 tonnes [1].", [PASSAGE],
                     FIRST)
