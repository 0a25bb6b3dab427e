"""A summary's sentences say "the paper", not its whole title again: a small model repeats the title its
prompt names, and the title's words are no finding (nor support for one)."""

from __future__ import annotations

from paperdesk.core.agents.page_grounding import without_title

TITLE = "Pollinator Visits in Small Orchards"


def test_the_quoted_title_becomes_the_paper():
    said = 'The method section of the paper "Pollinator Visits in Small Orchards" counts bees at dawn.'
    assert without_title(said, TITLE) == "The method section of the paper counts bees at dawn."
    assert without_title("“Pollinator visits in small orchards,” counts bees.", TITLE) == "The paper counts bees."
    assert without_title("Visits (pollinator) rose.", TITLE) == "Visits (pollinator) rose."  # no whole title



def test_a_sentence_without_the_title_is_left_as_written():
    assert without_title("the authors sketch three parts.", TITLE) == "the authors sketch three parts."
