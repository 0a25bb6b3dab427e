"""Agent mode's highlight is the page's whole words under search_for's hit, in reading order.

On Multi-LexSum's page 3 the long summary's spans carry marginal labels ("[a]") and a math-font "L",
and on page 4 "(L)" is set in a math font: clipping characters to the hit's rectangles
(`page.get_textbox`) read "Long Summary [ L [a] :" and "( L ) summaries".
"""

from __future__ import annotations

from pathlib import Path

import pymupdf

from paperdesk.core.research.agent_actions import found_in_pdf
from paperdesk.core.research.highlight_words import words_under

LEXSUM = Path(__file__).resolve().parents[1] / "fixtures" / "papers" / "2206.10883v3.pdf"


def test_the_highlight_is_the_words_as_the_page_reads_them() -> None:
    assert found_in_pdf(LEXSUM, [3], "Long Summary L: This case is about an apprenticeship test") == (
        3, "Long Summary L: This case is about an")
    assert found_in_pdf(LEXSUM, [4], "(L) summaries typically contain multiple paragraphs, covering the") == (
        4, "(L) summaries typically contain multiple paragraphs, covering the")


def test_a_hit_over_a_line_end_reads_both_lines_in_order() -> None:
    with pymupdf.open(LEXSUM) as doc:
        page = doc[3]
        words = sorted(page.get_text("words"), key=lambda w: (w[5], w[6], w[7]))
        i = next(i for i in range(40, len(words) - 4) if words[i][6] != words[i + 1][6]
                 and words[i][5] == words[i + 1][5] and not any("-" in w[4] or not w[4].isascii()
                                                                for w in words[i - 3:i + 5]))
        needle = " ".join(w[4] for w in words[i - 3:i + 5])  # a line's last four words, the next line's first four
        rects = page.search_for(needle)
        assert len(rects) >= 2
        assert " ".join(words_under(page, rects, 8)) == needle
    assert found_in_pdf(LEXSUM, [4], needle) == (4, needle)
