"""The support check on real fixture-paper pages: sentences whose numbers, names, DOIs or words are not
on the cited page are dropped, in the streamed text as in the stored one; good paraphrases stay.

The pages and chunks are the fixture PDFs as ingest parses them; grounding uses the real embedder.
"""

from functools import lru_cache

import numpy as np
import pytest

from conftest import PAPERS
from paperdesk.core.agents.citations import CITATION
from paperdesk.core.agents.claims import debris, supports
from paperdesk.core.agents.page_grounding import PageGrounder, SectionGrounding
from paperdesk.core.agents.sentence_stream import SentenceGate
from paperdesk.core.agents.summarizer import pick_excerpts
from paperdesk.core.ingest.pdf import parse_pdf
from paperdesk.core.db.store import Chunk


@lru_cache(maxsize=None)
def parsed(name):
    return parse_pdf(PAPERS / f"{name}.pdf")


# (paper, page, sentence, supported): the bad ones are the kinds of sentence the desk showed as summaries
# and answers ("The paper is part of the book chapter ...", invented percentages, an invented DOI).
CASES = [
    ("2206.10883v3", 2, "Multi-LexSum contains about 40,000 source documents and 9,000 expert-written summaries.",
     True),
    ("2206.10883v3", 2, "Each summary takes an expert one to four hours to write and must be updated as the case "
                        "proceeds.", True),
    ("2206.10883v3", 2, "Multi-LexSum contains about 400,000 source documents.", False),
    ("2206.10883v3", 2, "The dataset was released by Stanford Law School in 2019.", False),
    ("2302.07302v1", 2, "CiteSee increased the citation click rate by 10.3% compared to 7.8% for the baseline.",
     False),
    ("2302.07302v1", 2, "Unexplored citations are highlighted in shades of yellow to show their potential relevance "
                        "to the user.", True),
    ("2302.07302v1", 2, "Users can click on a citation to see a Paper Card with citing sentences from recently read "
                        "papers.", True),
    ("2304.02623v1", 1, "The paper is part of the book chapter on writing with language models.", False),
    ("2304.02623v1", 1, "This is similar to 20 years ago when this question was asked for the first time.", False),
    ("2304.02623v1", 1, "The authors argue that AI support for expository writing is understudied and can have high "
                        "real-world impact.", True),
    ("2304.02623v1", 1, "Expository writing is evidence-based and knowledge-generating, combining summaries of source "
                        "documents with new insights.", True),
    ("papermage", 2, "The paper was published in the journal SQuALITY (https://doi.org/10.3748/squality.2021.06).",
     False),
    ("papermage", 2, "papermage is an open-source Python toolkit for processing scientific documents.", True),
    ("papermage", 2, "Without it, users must write extensive custom code that strings together pipelines of "
                     "multiple models.", True),
]


@pytest.mark.parametrize("name,page,sentence,expected", CASES)
def test_claims_are_checked_against_the_real_page(name, page, sentence, expected):
    ok, why = supports(sentence, parsed(name).pages[page - 1])
    assert ok is expected, why


def test_each_item_of_a_list_must_be_on_the_page():
    """A list is a set of claims: the writer filled PaperMage's with what such toolkits usually handle."""
    toolkit = parsed("papermage").pages[0]
    assert not supports("The paper's core contributions include the development of a unified toolkit that can "
                        "handle various types of scientific documents, including images, tables, and figures.",
                        toolkit)[0]
    lawsuits = parsed("2206.10883v3").pages[0]
    assert supports("The summaries serve lawyers, scholars, and the general public.", lawsuits)[0]
    ok, why = supports("The summaries serve lawyers, judges, and journalists.", lawsuits)
    assert not ok and "judges" in why and "journalists" in why


def test_malformed_citation_debris_is_cleaned_and_good_markers_stay():
    assert debris("Readers track citations [p [p. 1].]") == "Readers track citations [p. 1]."
    assert debris("The tool helps readers [p.].") == "The tool helps readers."
    assert debris("The section says, citing pages like [p. 3") == "The section says, citing pages like"
    assert debris("It works [pp. 2-3] and scales [p. 4].") == "It works [pp. 2-3] and scales [p. 4]."
    assert debris("Results hold [pp. ].") == "Results hold."


@pytest.fixture(scope="module")
def beyond(embedder):
    """A grounder over the 4-page 'Beyond Summarization' paper's real chunks and pages."""
    paper = parsed("2304.02623v1")
    chunks = [Chunk(i + 1, "p", i, c.page_start, c.page_end, c.section, c.text) for i, c in enumerate(paper.chunks)]
    chunks = pick_excerpts(chunks) + [c for c in chunks if c.page_start == 1]  # as a summary's sources are
    vectors = np.asarray(embedder.encode([c.text for c in chunks]))
    return PageGrounder(chunks, vectors, embedder.encode, lambda p: paper.pages[p - 1] if p <= len(paper.pages)
                        else "", page_count=len(paper.pages))


def test_the_filed_summary_sentences_are_dropped_and_good_ones_cited(beyond):
    out = SectionGrounding("")
    assert beyond.ground_sentence("The paper is part of the book chapter on writing with language models [p. 1].",
                                  out) is None
    assert beyond.ground_sentence("This is similar to 20 years ago when this question was asked for the first "
                                  "time.", out) is None
    good = beyond.ground_sentence("The authors argue that AI support for expository writing is understudied.", out)
    assert good is not None and good.endswith("[p. 1].")
    assert (out.sentences, out.cited, out.unsupported, len(out.dropped)) == (3, 1, 2, 2)


def test_a_citation_past_the_last_page_is_never_kept(beyond):
    out = SectionGrounding("")
    text = beyond.ground_sentence("The authors argue that AI support for expository writing is understudied [p. 5].",
                                  out)
    assert text is not None and 5 in out.removed
    assert all(int(m.group(1)) <= 4 for m in CITATION.finditer(text))


def test_the_streamed_text_is_the_checked_text(beyond):
    """Tokens arrive a few characters at a time; only checked sentences come out, and they are the stored text."""
    raw = ("The authors argue that AI support for expository writing is understudied [p. 4]. "
           "The paper is part of the book chapter on writing with language models [p [p. 1].] "
           "This is similar to 20 years ago when this question was asked. "
           "Expository writing combines summaries of source documents with new insights and knowledge [p. 5].\n"
           "A reader asked: what is the paper about?\n"
           "The section says, citing pages like [p. 3")
    streamed: list[str] = []
    gate = SentenceGate(beyond, streamed.append)
    for i in range(0, len(raw), 3):
        gate.feed(raw[i : i + 3])
    text = gate.finish(complete=False)
    assert "".join(streamed) == text
    assert "book chapter" not in text and "20 years" not in text and "reader asked" not in text.lower()
    assert "citing pages like" not in text and "[p [" not in text and ".]" not in text
    pages = [int(m.group(1)) for m in CITATION.finditer(text)]
    assert len(pages) == 2 and all(1 <= p <= 4 for p in pages)
    assert gate.leaks == 1


def test_a_sentence_cut_off_on_a_joining_word_is_not_shown_even_when_the_model_stopped_there(beyond):
    """A section's last line "... images, tables, and" (the model broke the line, then stopped) is no sentence."""
    streamed: list[str] = []
    gate = SentenceGate(beyond, streamed.append)
    gate.feed("The authors argue that AI support for expository writing is understudied [p. 4].\n"
              "Expository writing combines summaries of source documents with new insights and [p. 5]\n"
              "Expository writing combines summaries of source documents with")
    text = gate.finish(complete=True)
    assert "The authors argue" in text
    assert "insights and" not in text and "documents with" not in text and "".join(streamed) == text


def test_a_numbered_item_with_a_bold_label_is_checked_as_its_sentence(beyond):
    """"1. **Label**: sentence" is list layout: the number is no sentence, the label no word of the text."""
    streamed: list[str] = []
    gate = SentenceGate(beyond, streamed.append)
    gate.feed("Key points:\n\n1. **Background**: The authors argue that AI support for expository writing is "
              "understudied [p. 4].\n2.")
    text = gate.finish(complete=True)
    assert text.startswith("The authors argue that AI support") and "**" not in text and "Background" not in text
    assert gate.grounding.sentences == 1 and gate.grounding.unsupported == 0 and "".join(streamed).strip() == text


def test_a_sentence_that_splits_once_its_marker_is_lifted_is_counted_as_the_text_reads(beyond):
    """"A.[p. 1] B." is one piece to the stream but two sentences in the text: each is checked and cited."""
    from paperdesk.core.agents import quality

    out = SectionGrounding("")
    text = beyond.ground_sentence("The authors argue that AI support for expository writing is understudied.[p. 1] "
                                  "Expository writing combines summaries of source documents with new insights.",
                                  out)
    assert text is not None
    cited, total, _ = quality.summary_grounding(text)
    assert (cited, total) == (out.cited, out.sentences) == (2, 2), text


def test_a_quoted_sentence_is_one_sentence_whatever_abbreviations_it_holds():
    """The extractive quotes keep "et al. (2022)" and "Sec. 3" inside one sentence; the cited share counts them so."""
    from paperdesk.core.agents import extractive, quality

    body = extractive.render([("Lo et al. (2023) describe the toolkit as in Sec. 3 of their paper.", 2, 2),
                              ("The models are integrated into standard interfaces for documents.", 4, 4)])
    text = f"# T\n\n## Problem\n{body}\n\n## Method\nThe toolkit parses papers [p. 1]. It runs fast."
    assert quality.summary_grounding(text) == (3, 4, ["Problem"])


def test_an_answer_is_held_to_more_of_its_words_on_the_passage_than_a_summary_sentence():
    passage = "We ran two experiments on Multi-LexSum: summarization at each granularity, and cross-granularity."
    sentence = "The researchers performed two experiments with Multi-LexSum."  # "performed" is not there
    assert supports(sentence, passage)[0]
    ok, why = supports(sentence, passage, cover_min=0.7)
    assert not ok and "of its words on the page" in why


def test_a_count_must_count_the_same_thing_on_the_page():
    """The teacher read "our experiments focus on two questions" as two experiments: the number is on the
    page, the thing counted is not."""
    page = parsed("2206.10883v3").pages[5]
    assert not supports("The researchers performed two experiments with Multi-LexSum.", page)[0]
    assert supports("The experiments on Multi-LexSum focus on two questions.", page)[0]
    assert supports("The study had 40 participants.", "Participants (n = 40) took part in the study.")[0]
    assert not supports("Table 3 lists 12 datasets.", "Table 3 compares the 12 models.")[0]
    assert supports("Table 3 compares 12 models.", "Table 3 compares the 12 models.")[0]
