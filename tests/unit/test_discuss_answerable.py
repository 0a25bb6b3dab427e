"""The discussion bench's check of a "not found" answer: a sentence of the paper holding the question's rare words."""

from paperdesk.bench.discuss_answerable import answer_sentence

PAGES = ["Ledger: a study of river sediment. Ledger samples were taken weekly.",
         "Ledger measured turbidity with a calibrated optical sensor at each station.",
         "Ledger found that sediment load doubled after storms.",
         "Ledger thanks the field crew."]


def test_a_question_whose_rare_words_stand_in_one_sentence_is_answerable():
    found = answer_sentence("How did Ledger measure turbidity at the stations?", PAGES)
    assert found is not None and "optical sensor" in found


def test_a_question_the_pages_do_not_cover_is_not():
    assert answer_sentence("What budget did the Ledger project receive from donors?", PAGES) is None
