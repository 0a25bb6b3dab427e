"""A question that names a paper is answered from that paper's passages, or not found.

Pure functions over hand-made hits and passages (invented papers and sentences); no model is involved.
"""

from __future__ import annotations

from paperdesk.core.agents.answer import quoted_answer
from paperdesk.core.agents.answer_scope import cites_unnamed_only
from paperdesk.core.library.library import Hit
from toy_encoders import BagOfWords

GLACIER = "Glacierscope: Measuring Ice Loss from Orbit"
SOILS = "Soil Microbes after Compost"


def hit(n: int, title: str, paper: str) -> Hit:
    return Hit(paper, title, n, n, n, "Results", "", 1.0, None, None)


HITS = [hit(1, GLACIER, "glacier"), hit(2, SOILS, "soil"), hit(3, GLACIER, "glacier")]


def test_an_answer_citing_only_another_paper_is_not_an_answer_to_a_named_paper():
    question = "How many hours of field work did the Glacierscope team spend per site?"
    assert cites_unnamed_only("The trial took three hours per plot [2].", question, HITS)
    assert not cites_unnamed_only("It took three hours per site [1].", question, HITS)
    assert not cites_unnamed_only("It took three hours per site [1], as in the trial [2].", question, HITS)


def test_a_question_naming_no_paper_may_be_answered_from_any():
    question = "How many hours of field work were spent per site?"
    assert not cites_unnamed_only("The trial took three hours per plot [2].", question, HITS)


def test_an_uncited_answer_is_left_to_the_other_checks():
    question = "How many hours did the Glacierscope team spend per site?"
    assert not cites_unnamed_only("No passage says so.", question, HITS)


def test_the_quoted_fallback_quotes_only_the_named_paper():
    bag = BagOfWords(64)  # word counts, NOT an embedding model: only which sentence is closest matters
    texts = ["The orbit camera resolves features of two metres on the ice surface.",
             "As in the Glacierscope campaign, each survey site was sampled for ice thickness twice a year.",
             "The orbit survey covered forty sites."]
    named = "In Glacierscope, how often was each survey site sampled for ice thickness?"
    assert quoted_answer(named, HITS, texts, bag) is None  # only the soil paper's passage says it
    unnamed = "How often was each survey site sampled for ice thickness?"
    assert quoted_answer(unnamed, HITS, texts, bag).endswith("[2].")
    texts[2] = "Each survey site was sampled for ice thickness twice a year."
    assert quoted_answer(named, HITS, texts, bag).endswith("[3].")  # cited by its own number, not its rank
