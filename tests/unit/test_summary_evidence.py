"""A summary's sentences say "the paper", not its whole title again, and its results are phrased from the
abstract's sentences that state figures, selected first and cited with their page."""

from __future__ import annotations

from paperdesk.core.agents.page_grounding import without_title
from paperdesk.core.agents.summarizer import figure_notes
from paperdesk.core.db.records import Chunk

TITLE = "Pollinator Visits in Small Orchards"


def test_the_quoted_title_becomes_the_paper():
    said = 'The method section of the paper "Pollinator Visits in Small Orchards" counts bees at dawn.'
    assert without_title(said, TITLE) == "The method section of the paper counts bees at dawn."
    assert without_title("“Pollinator visits in small orchards,” counts bees.", TITLE) == "The paper counts bees."
    assert without_title("Visits (pollinator) rose.", TITLE) == "Visits (pollinator) rose."  # no whole title


def test_the_results_notes_are_the_abstracts_sentences_with_figures():
    abstract = Chunk(1, "p", 0, 1, 1, "Abstract",
                     "Abstract Orchards were surveyed as in earlier work (Example 2019). Visits rose by 31% beside "
                     "wildflower strips across the three valleys. Observers walked fixed routes at dawn. Fruit set "
                     "followed visits with a correlation of 0.8 in the second season.")
    notes = figure_notes(abstract)
    assert notes == ["- Visits rose by 31% beside wildflower strips across the three valleys. [p. 1]",
                     "- Fruit set followed visits with a correlation of 0.8 in the second season. [p. 1]"]
    assert figure_notes(None) == []
