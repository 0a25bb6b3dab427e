"""A quoted sentence is cited on the page that holds it word for word, or on both pages it runs over."""

from __future__ import annotations

from paperdesk.core.discussion.truthful import verbatim_pages

PAGES = {4: "The first page ends with a sentence that runs on", 5: "to the next page. A second one stays here."}


def test_a_sentence_over_a_page_break_is_cited_on_both_pages():
    assert verbatim_pages("a sentence that runs on to the next page.", 4, 5, PAGES.get) == (4, 5)


def test_a_sentence_on_one_page_is_cited_on_that_page():
    assert verbatim_pages("A second one stays here.", 4, 5, PAGES.get) == (5, 5)
    assert verbatim_pages("The first page ends ...", 4, 5, PAGES.get) == (4, 4)  # a cut quote


def test_a_sentence_no_page_holds_as_written_is_left_to_the_word_count():
    assert verbatim_pages("A sentence nobody wrote.", 4, 5, PAGES.get) is None
