"""A summary's limitations section reads the paper's most limitation-like sentences first (real embedder)."""

from paperdesk.core.agents.limitation_notes import limitation_notes
from paperdesk.core.db.store import Chunk

TEXTS = [
    ("Introduction", 1, "Irrigation schedules decide how much water a farm uses over a season. We compare two "
     "schedules on forty plots of wheat over three dry seasons and report the yields of each."),
    ("Method", 2, "Each plot was watered either every third day or when the soil sensor read below a set level. "
     "Yields were weighed at harvest and compared with a paired test across the three seasons."),
    ("Results", 3, "The sensor schedule used a quarter less water than the fixed schedule. Yields of the two "
     "schedules were the same within the error of the scales in every season."),
    ("Discussion", 4, "The plots all lay on one farm with a single soil type. Because of this, the savings may "
     "not hold on sandy or clay soils, and our three seasons were all unusually dry. The sensor itself was "
     "calibrated once, before the first season."),
    ("References", 5, "[1] A. Author. Irrigation scheduling with soil sensors. Journal of Water Use, 2019, "
     "pp. 1-10. [2] B. Author. Dry seasons and yields. In Proceedings of the Farm Conference, 2020."),
]


def chunks():
    return [Chunk(i + 1, "p", i, page, page, section, text) for i, (section, page, text) in enumerate(TEXTS)]


def test_the_limitations_read_the_sentences_stating_a_limit_from_the_discussion(embedder):
    notes, passages = limitation_notes(chunks(), embedder.encode)
    assert passages[0].section == "Discussion"
    assert all(p.section != "References" for p in passages)
    assert len(notes) == 3 and all(n.startswith("- ") and n.endswith("].") for n in notes)
    assert notes[0] == "- Because of this, the savings may not hold on sandy or clay soils, and our three seasons " \
                       "were all unusually dry [p. 4]."


def test_a_paper_without_passages_has_no_limitation_notes(embedder):
    assert limitation_notes([], embedder.encode) == ([], [])
