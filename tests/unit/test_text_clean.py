"""Terminal-safe text: escape sequences and control characters go, whole, even when split across pieces."""

from __future__ import annotations

import re

from conftest import PAPERS
from paperdesk.core.text.clean import ControlStripper, strip_controls

HOSTILE = ("plain \x1b[1;31mred\x1b[0m \x1b]0;title\x07 \x1b]8;;http://x\x1b\\link\x1b]8;;\x1b\\ "
           "\x9b2J \x1b7saved\x1b8 bell\x07 cr\r\nnext\ttab \x1bPdcs\x1b\\ del\x7f end \x1b[")
CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")


def test_whole_sequences_go_and_newlines_and_tabs_stay():
    assert strip_controls(HOSTILE) == "plain red  link  saved bell cr\nnext\ttab  del end ["
    assert strip_controls("ordinary text, café — ok") == "ordinary text, café — ok"


def test_a_stream_split_anywhere_comes_out_as_the_whole_text_does():
    whole = strip_controls(HOSTILE)
    for size in (1, 2, 3, 5, 7):
        stripper = ControlStripper()
        out = "".join(stripper.feed(HOSTILE[i:i + size]) for i in range(0, len(HOSTILE), size)) + stripper.flush()
        assert out == whole, size
    for cut in range(len(HOSTILE)):
        stripper = ControlStripper()
        assert stripper.feed(HOSTILE[:cut]) + stripper.feed(HOSTILE[cut:]) + stripper.flush() == whole, cut


def test_an_unterminated_sequence_is_not_held_back_forever():
    stripper = ControlStripper()
    out = stripper.feed("a\x1b]0;") + stripper.feed("x" * 300) + stripper.feed("b")
    assert out.startswith("a]0;xxx") and out.endswith("b") and not CONTROL.search(out)


def test_ingest_drops_the_control_characters_a_pdf_font_maps_to():
    from paperdesk.core.ingest.pdf import parse_pdf
    from paperdesk.core.ingest.tables import is_table_section

    parsed = parse_pdf(PAPERS / "2206.10883v3.pdf")  # symbol glyphs on pages 19-20 extract as C1 codes
    assert [n for n, page in enumerate(parsed.pages, 1) if CONTROL.search(page)] == []
    # 66 chunks of text, as before tables were read, and 9 of table rows: Tables 4, 5, 7, 8, 9 one each,
    # Tables 2 and 3 two each (too long for one); Table 1 and 6 (prose and a list, no rows) give none.
    assert len(parsed.chunks) == 75
    assert sum(not is_table_section(c.section) for c in parsed.chunks) == 66


def test_counts_and_progress_read_as_english():
    from paperdesk.core.progress import Progress, counted

    assert [counted(1, "page"), counted(2, "page"), counted(1, "entry"), counted(3, "entry"), counted(0, "step")] \
        == ["1 page", "2 pages", "1 entry", "3 entries", "0 steps"]
    assert Progress("reduce", 1, 4, "sections").amount == "1/4 sections"  # not "1 sections/4 sections"
    assert Progress("parse", 3, 1, "pages").amount == "3/1 page"
    assert Progress("parse", 1, None, "pages").amount == "1 page"
    assert Progress("download", 1_200_000, 5_000_000, "bytes").amount == "1.2/5.0 MB"
