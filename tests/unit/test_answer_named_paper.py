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


SOIL_CARBON = "Carbon in Soils under Compost over Ten Years"


def test_a_paper_described_by_its_title_words_is_named_for_the_answer_gates():
    from paperdesk.core.agents.evidence import named_papers

    hits = [hit(1, GLACIER, "glacier"), hit(2, SOILS, "soil"), hit(3, SOIL_CARBON, "carbon")]
    question = "In the compost soil microbes study, how often was diversity sampled?"
    assert named_papers(question, hits, described=True) == {"soil"}
    assert named_papers(question, hits) == set()  # search's lift reads short titles only
    assert named_papers("What does the orbital ice loss paper report for 2020?", hits, described=True) == {"glacier"}
    # a catch-all question, a description no title holds, a plural: no paper is named
    for unnamed in ("How often was diversity sampled?", "In the river delta study, how often was it sampled?",
                    "What do the compost soil papers find?"):
        assert named_papers(unnamed, hits, described=True) == set()


def test_a_description_two_titles_hold_equally_names_neither():
    from paperdesk.core.agents.evidence import named_papers

    hits = [hit(1, SOILS, "soil"), hit(2, SOIL_CARBON, "carbon")]
    assert named_papers("In the compost soil study, what was measured?", hits, described=True) == set()
    assert named_papers("In the compost soil carbon study, what was measured?", hits, described=True) == {"carbon"}


def test_an_answer_from_another_paper_than_the_described_one_is_not_an_answer():
    question = "In the glacier ice loss paper, how many hours of field work were spent per site?"
    assert cites_unnamed_only("The trial took three hours per plot [2].", question, HITS)
    assert not cites_unnamed_only("It took three hours per site [1].", question, HITS)
