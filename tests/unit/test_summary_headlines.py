"""The opening's sentences that state figures, which the results section of a summary reads first."""

from paperdesk.core.agents.summarizer import SENTENCE_COVER, figure_notes, headline_quotes
from paperdesk.core.agents.claims import COVER_MIN, SENTENCE_WORDS, supports
from paperdesk.core.db.store import Chunk

OPENING = ("Abstract. Irrigation controllers water each row on a timer. We built one that reads soil sensors. "
           "Over one season on 12 rows it used 18% less water than a fixed timer. "
           "Yields were 4.2 tonnes per hectare, as in 2019. The controller cost 1,250 euros to build. "
           "It was first described in 2021. A fourth sentence with 0.5 percent of drift closes it. "
           "A fifth with 3.5 units is past the limit.")


def test_figure_notes_keep_sentences_stating_figures_in_order_with_their_page():
    chunk = Chunk(1, "p", 0, 1, 1, "Abstract", OPENING)
    notes = figure_notes(chunk)
    assert notes == ["- Over one season on 12 rows it used 18% less water than a fixed timer [p. 1].",
                     "- Yields were 4.2 tonnes per hectare, as in 2019 [p. 1].",
                     "- The controller cost 1,250 euros to build [p. 1]."]


def test_figure_notes_skip_years_small_counts_and_footnote_marks():
    text = ("Jane Doe1,2 and John Roe3 wrote it in 2020 with 12 helpers. "
            "The survey found three trends across the field.")
    assert figure_notes(Chunk(1, "p", 0, 2, 3, "Abstract", text)) == []


def test_a_multi_page_opening_is_cited_as_its_page_range():
    chunk = Chunk(1, "p", 0, 1, 2, "Abstract", "The method cut the error by 35% on the held-out set of images.")
    assert figure_notes(chunk) == ["- The method cut the error by 35% on the held-out set of images [pp. 1-2]."]


def test_summary_sentences_are_held_to_more_of_their_words_than_the_default():
    assert SENTENCE_COVER > COVER_MIN


PAGE = ("We sampled soil cores from 40 wheat plots over two seasons. Cores were dried at 60 degrees, sieved and "
        "weighed; nitrogen was measured by combustion. Plots with cover crops held 12% more nitrogen.")


def test_a_summary_sentence_framing_the_topic_in_words_its_page_lacks_is_unsupported():
    framing = "The paper presents a detailed method for measuring nitrogen in wheat plots [p. 2]."
    ok, why = supports(framing, PAGE, cover_min=SENTENCE_COVER, words_min=SENTENCE_WORDS)
    assert supports(framing, PAGE, cover_min=SENTENCE_COVER)[0]  # its topic words are all on the page
    assert not ok and "of all its words" in why
    stated = "Soil cores from 40 wheat plots were dried, sieved and weighed, and nitrogen measured by combustion."
    assert supports(stated, PAGE, cover_min=SENTENCE_COVER, words_min=SENTENCE_WORDS) == (True, "")


def test_a_results_section_stating_none_of_the_openings_figures_quotes_them():
    chunk = Chunk(1, "p", 0, 1, 2, "Abstract", OPENING)
    on_page = lambda sentence, c: (2, 2)  # noqa: E731  (the grounder's pages_for: the page holding it)
    written = "The controller watered the rows from soil readings instead of a timer [p. 2]."
    assert headline_quotes(written, chunk, on_page) == [
        "- “Over one season on 12 rows it used 18% less water than a fixed timer” [p. 2].",
        "- “Yields were 4.2 tonnes per hectare, as in 2019” [p. 2]."]
    stating = "It used 18% less water, and yields held at 4.2 tonnes per hectare [p. 2]."
    assert headline_quotes(stating, chunk, on_page) == ["- “The controller cost 1,250 euros to build” [p. 2]."]
    assert headline_quotes(stating + " It cost 1,250 euros [p. 2].", chunk, on_page) == []
