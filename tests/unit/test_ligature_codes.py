"""A PDF set in TeX's T1 font encoding without a Unicode map gives its ligatures as the codes 0x1B-0x1F;
inside a word they are the letters they stand for, never dropped ("significance", not "signicance"), and
elsewhere they go with the other control characters."""

from __future__ import annotations

from paperdesk.core.ingest.layout import plain_text


def test_t1_ligature_codes_inside_words_are_their_letters():
    assert plain_text("signi\x1ccance of the \x1ductuation") == "significance of the fluctuation"
    assert plain_text("e\x1bect, e\x1eciency and ba\x1fing") == "effect, efficiency and baffling"


def test_the_codes_outside_a_word_are_dropped_like_other_controls():
    assert plain_text("a \x1b[31m red") == "a [31m red"  # an escape sequence never reaches the terminal
    assert plain_text("end\x1d.") == "endfl."  # after a letter: a ligature ending the word
    assert plain_text("\x1c 12") == " 12"
