"""bench summaries reads a summary's sentences as a reader sees them, and its check flags an invented figure."""

from paperdesk.bench.discuss_check import sentence_supported
from paperdesk.bench.summaries_check import shown_sentences
from paperdesk.core.agents import extractive

PAGE = "Multi-LexSum holds 9,280 expert-authored summaries of 4,539 civil rights lawsuits."


def test_a_quoted_bullet_is_one_sentence_and_the_note_is_none():
    quotes = extractive.render([("Lo et al. (2023) describe the toolkit as in Sec. 3 of their paper.", 2, 2)])
    text = (f"# T\n\n## Problem\n{quotes}\n\n## Method\nThe corpus has summaries [p. 1]. "
            "It covers lawsuits [p. 1].")
    got = shown_sentences(text)
    assert len(got) == 3 and got[0].startswith("“Lo et al. (2023)")


def test_the_check_flags_a_number_the_cited_page_does_not_state():
    page = lambda _pid, _p: PAGE  # noqa: E731
    assert sentence_supported("Multi-LexSum holds 9,280 expert-authored summaries [p. 1].", "x", page)
    assert not sentence_supported("Multi-LexSum holds 12,000 expert-authored summaries [p. 1].", "x", page)
