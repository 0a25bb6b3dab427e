"""A full stop that closes an abbreviation does not end the sentence, in the evidence and in a summary's text."""

import pytest

from paperdesk.core.agents.evidence import evidence_sentences
from paperdesk.core.agents.quality import split_sentences
from paperdesk.core.text.abbreviations import joins, rejoin


@pytest.mark.parametrize("text", [
    "Kim et al. [31] develop a graph-based method for ranking sentences.",
    "We follow Zeileis et al. (2007) and shade the residuals.",
    "The survey by Lee et al. 2019 lists nine datasets.",
    "The electrodes sit in a grid, as shown in Fig. 1 and in Figs. 2-3.",
    "The loss is given in Eq. (4) and minimised by gradient descent.",
    "Supplementary Fig. S2 shows the raw counts.",
    "Small models, e.g. GPT-2, rarely abstain when asked.",
    "Results are reported in Sec. 3.1 of the appendix.",
])
def test_an_abbreviation_inside_a_sentence_keeps_it_whole(text):
    assert evidence_sentences(text) == [text]
    assert split_sentences(text) == [text]


def test_a_sentence_that_ends_with_et_al_still_ends_before_a_capitalised_word():
    text = "The method comes from Kim et al. The next section tests it."
    assert evidence_sentences(text) == ["The method comes from Kim et al.", "The next section tests it."]


def test_ordinary_sentences_still_split():
    text = "Accuracy rose to 91%. In 2019 the corpus doubled. [3] lists the sources."
    assert evidence_sentences(text) == ["Accuracy rose to 91%.", "In 2019 the corpus doubled.", "[3] lists the sources."]


def test_a_summary_page_citation_is_not_taken_for_an_abbreviation():
    text = "The recall was 0.8 [p. 3]. The precision was 0.7 [p. 4]."
    assert split_sentences(text) == ["The recall was 0.8 [p. 3].", "The precision was 0.7 [p. 4]."]


def test_rejoin_joins_only_after_an_abbreviation():
    assert rejoin(["As in Fig.", "2 we see it.", "Then it ends."]) == ["As in Fig. 2 we see it.", "Then it ends."]
    assert not joins("", "2 we see it.")
    assert not joins("It rose to 3.", "4 more came.")
    assert joins("(cf.", "Table 2).")
