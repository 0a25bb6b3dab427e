"""A figure's own words (ticks, axis titles, legends) stay out of the text; captions and listings stay in.

The PDFs are drawn here with PyMuPDF: a page of body text with a plot (lines and small labels) and its
caption between the two halves of a paragraph, a framed listing, and page numbers set above the bottom
margin band, then read by the real ingest.
"""

from __future__ import annotations

from pathlib import Path

import pymupdf

from paperdesk.core.ingest.chunking import Para, captions_after_sentences
from paperdesk.core.ingest.pdf import parse_pdf

BODY = 10.0
LEFT, RIGHT = 72.0, 540.0
FILLER = ("The survey covered many small farms across the region and recorded the yield of each field "
          "over three growing seasons with the same method. ")


def _text(page: pymupdf.Page, y: float, text: str, size: float = BODY, x: float = LEFT, width: float = 0) -> float:
    """Write `text` as one block from (x, y); return the y under it."""
    rect = pymupdf.Rect(x, y, x + (width or RIGHT - x), y + 400)
    page.insert_textbox(rect, text, fontsize=size, fontname="helv")
    lines = max(1, int(pymupdf.get_text_length(text, "helv", size) / (rect.width - 4)) + 1)
    return y + lines * size * 1.2 + 6


def _plot(page: pymupdf.Page, top: float) -> float:
    """A small line plot with ticks and axis titles in a 7-pt font; return its bottom (labels included)."""
    box = pymupdf.Rect(200, top, 400, top + 120)
    shape = page.new_shape()
    shape.draw_rect(box)
    shape.draw_polyline([(210, top + 110), (260, top + 60), (320, top + 80), (390, top + 20)])
    shape.finish(color=(0, 0, 0), width=0.8)
    shape.commit()
    for i, tick in enumerate(("0", "2", "4", "6")):
        page.insert_text((188, top + 118 - i * 35), tick, fontsize=7, fontname="helv")
    page.insert_text((160, top + 70), "Yield (t/ha)", fontsize=7, fontname="helv")
    page.insert_text((270, top + 135), "Growing season", fontsize=7, fontname="helv")
    return top + 140


def plot_pdf(path: Path) -> Path:
    doc = pymupdf.open()
    for number in range(1, 4):
        page = doc.new_page(width=612, height=792)
        y = 80.0
        if number == 2:
            y = _text(page, y, FILLER * 3 + "Across all fields the mean yield rose by")
            y = _plot(page, y + 10)
            y = _text(page, y + 8, "Figure 1: Mean yield per season across the surveyed farms.")
            y = _text(page, y + 4, "twelve percent between the first season and the last. " + FILLER * 2)
        else:
            y = _text(page, y, FILLER * 6)
        page.insert_text((300, 700), str(number), fontsize=BODY, fontname="helv")  # above a 10% bottom band
    doc.save(path)
    return path


def listing_pdf(path: Path) -> Path:
    doc = pymupdf.open()
    page = doc.new_page(width=612, height=792)
    y = _text(page, 80, FILLER * 3)
    code = ["result <- fit_model(data = farms, method = 'iterative')",
            "summary(result, digits = 4, show_residuals = TRUE)"]
    shape = page.new_shape()
    shape.draw_rect(pymupdf.Rect(LEFT, y + 4, RIGHT, y + 50))
    shape.finish(color=(0, 0, 0), width=0.5)
    shape.commit()
    for i, line in enumerate(code):
        page.insert_text((LEFT + 8, y + 22 + i * 14), line, fontsize=8, fontname="cour")
    _text(page, y + 60, "Figure 2: The call that fits the model.")
    doc.save(path)
    return path


def test_a_plots_ticks_and_axis_titles_leave_the_text_and_its_caption_stays(tmp_path) -> None:
    parsed = parse_pdf(plot_pdf(tmp_path / "plot.pdf"))
    page = parsed.pages[1]
    for label in ("Yield (t/ha)", "Growing season"):
        assert label not in page
    assert "Figure 1: Mean yield per season across the surveyed farms." in page
    words = " ".join(c.text for c in parsed.chunks).split()
    assert not any(w in {"0", "2", "4", "6"} for w in words)  # neither ticks nor page numbers


def test_a_sentence_the_figure_cut_reads_whole_and_the_caption_follows_it(tmp_path) -> None:
    parsed = parse_pdf(plot_pdf(tmp_path / "plot.pdf"))
    text = " ".join(c.text for c in parsed.chunks)
    assert "the mean yield rose by twelve percent between the first season and the last." in text
    assert text.index("rose by twelve percent") < text.index("Figure 1: Mean yield")


def test_page_numbers_above_the_margin_band_are_not_text(tmp_path) -> None:
    parsed = parse_pdf(plot_pdf(tmp_path / "plot.pdf"))
    for page in parsed.pages:
        assert not any(block.strip().isdigit() for block in page.split("\n\n"))


def test_a_framed_listing_is_text_not_a_plot(tmp_path) -> None:
    page = parse_pdf(listing_pdf(tmp_path / "listing.pdf")).pages[0]
    assert "fit_model(data = farms, method = 'iterative')" in page
    assert "Figure 2: The call that fits the model." in page


def _paras(*texts: str, page: int = 1) -> list[Para]:
    return [Para(page, t) for t in texts]


def test_a_caption_inside_a_sentence_moves_after_the_paragraph_that_ends_it() -> None:
    one = _paras("The first results show that the yield rose by")
    two = _paras("Figure 3: Yields.", "Table 2: Costs.", "twelve percent in the last season.", "Next part.", page=2)
    assert captions_after_sentences([one, two]) == 1
    assert [p.text for p in two] == ["twelve percent in the last season.", "Figure 3: Yields.", "Table 2: Costs.",
                                     "Next part."]
    assert two[0].continues  # it goes on from page 1 now


def test_a_caption_after_an_ended_sentence_or_before_a_heading_stays() -> None:
    ended = _paras("The yield rose.", "Figure 1: Yields.", "Then costs fell.")
    assert captions_after_sentences([ended]) == 0
    before_heading = _paras("The yield rose by", "Figure 1: Yields.")
    before_heading.append(Para(1, "2 Methods", heading=True))
    assert captions_after_sentences([before_heading]) == 0
    assert [p.text for p in before_heading] == ["The yield rose by", "Figure 1: Yields.", "2 Methods"]
