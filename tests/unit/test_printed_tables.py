"""Printed tables: console output set in a fixed-width font is read back as rows of named cells."""

from __future__ import annotations

from pathlib import Path

import pymupdf

from paperdesk.core.ingest.layout import Line
from paperdesk.core.ingest.pdf import parse_pdf
from paperdesk.core.ingest.printed_tables import rewrite

CHAR = 6.0  # points per character of the made-up fixed-width font


def fixed(text: str, row: int, block: int = 0) -> Line:
    """A fixed-width line of `text` (leading spaces place it) on visual row `row`, as page_lines makes it."""
    body = text.lstrip()
    x0 = 72 + CHAR * (len(text) - len(body))
    y1 = 100 + 12 * row
    return Line(" ".join(body.split()), 10, 0, y1 - 10, y1, x0, x0 + CHAR * len(body), block, None, body)


def prose(text: str, row: int) -> Line:
    return Line(text, 10, 0, 90 + 12 * row, 100 + 12 * row, 72, 500, 9)


def texts(lines: list[Line]) -> list[str]:
    return [ln.text for ln in rewrite(lines)]


def test_a_summary_table_becomes_one_line_per_row_with_its_column_names() -> None:
    lines = [prose("The summary method gives", 0),
             fixed("R> summary(m1)", 1),
             fixed("       prior size post>0 ratio", 2),
             fixed("Comp.1 0.494  100    145 0.690", 3),
             fixed("Comp.2 0.506  100    141 0.709", 4),
             fixed("'log Lik.' -642.5451 (df=9)", 5)]
    assert texts(lines) == ["The summary method gives", "R> summary(m1)",
                            "Comp.1; prior: 0.494; size: 100; post>0: 145; ratio: 0.690.",
                            "Comp.2; prior: 0.506; size: 100; post>0: 141; ratio: 0.709.",
                            "'log Lik.' -642.5451 (df=9)"]


def test_names_of_several_words_bounds_and_significance_marks() -> None:
    lines = [fixed("            Estimate Std. Error z value Pr(>|z|)", 0),
             fixed("(Intercept) -0.208520   1.009207 -0.2066   0.8363", 1),
             fixed("x            4.814466   0.509610  9.4474  < 2e-16 ***", 2),
             fixed("---", 3)]
    assert texts(lines) == [
        "(Intercept); Estimate: -0.208520; Std. Error: 1.009207; z value: -0.2066; Pr(>|z|): 0.8363.",
        "x; Estimate: 4.814466; Std. Error: 0.509610; z value: 9.4474; Pr(>|z|): < 2e-16.",
        "---"]


def test_pieces_of_one_row_in_separate_lines_and_knitr_marks_are_joined_on_the_grid() -> None:
    # PyMuPDF cuts a row at its wide gaps; knitr puts "##" before each line of output
    lines = [fixed("##     mu    sig", 0),
             fixed("## 3.8939", 1, block=1), fixed("         1.7867", 1, block=2)]
    assert texts(lines) == ["mu: 3.8939; sig: 1.7867."]


def test_a_row_name_ending_in_a_figure_keeps_it() -> None:
    lines = [fixed("                         Estimate Std. Error t value Pr(>|t|)", 0),
             fixed("long - short == 0          1.1888     0.5203   2.285   0.0614 .", 1),
             fixed("long - intermediate == 0   0.7546     0.4579   1.648   0.2270", 2)]
    assert texts(lines)[0] == "long - short == 0; Estimate: 1.1888; Std. Error: 0.5203; t value: 2.285; Pr(>|t|): 0.0614."


def test_what_does_not_line_up_stays_as_it_was() -> None:
    unaligned = [fixed("    a b", 0), fixed("x 1 2", 1), fixed("yy 10 200", 2)]
    assert texts(unaligned) == ["a b", "x 1 2", "yy 10 200"]
    code = [fixed("R> table(NPreg$class, clusters(m1))", 0), fixed("  1 95  5", 1), fixed("  2  5 95", 2)]
    assert texts(code) == ["R> table(NPreg$class, clusters(m1))", "1 95 5", "2 5 95"]
    titled = [fixed("Cluster sizes:", 0), fixed("  1   2", 1), fixed("100 100", 2)]
    assert texts(titled) == ["Cluster sizes:", "1 2", "100 100"]
    words = [prose("prior size post>0 ratio", 0), prose("Comp.1 0.494 100 145 0.690", 1)]
    assert texts(words) == ["prior size post>0 ratio", "Comp.1 0.494 100 145 0.690"]  # not a fixed-width font


def test_a_pdf_with_console_output_in_courier_is_chunked_with_its_table_rows(tmp_path: Path) -> None:
    doc = pymupdf.open()
    page = doc.new_page()
    page.insert_text((72, 60), "Mixture Models in Practice", fontsize=18, fontname="hebo")
    y = 110
    for sentence in ["We fit the model with two components and print its summary.",
                     "The ratios tell how well the components are separated."]:
        page.insert_text((72, y), sentence, fontsize=10)
        y += 14
    for line in ["R> summary(m1)", "       prior size post>0 ratio", "Comp.1 0.494  100    145 0.690",
                 "Comp.2 0.506  100    141 0.709"]:
        page.insert_text((72, y), line, fontsize=10, fontname="cour")
        y += 12
    page.insert_text((72, y + 10), "Both ratios are about 0.7, so the classes overlap.", fontsize=10)
    path = tmp_path / "mixtures.pdf"
    doc.save(path)
    text = " ".join(c.text for c in parse_pdf(path).chunks)
    assert "Comp.1; prior: 0.494; size: 100; post>0: 145; ratio: 0.690." in text
    assert "Comp.2; prior: 0.506; size: 100; post>0: 141; ratio: 0.709." in text
    assert "post>0 ratio" not in text  # the header is in every row now
    assert "Both ratios are about 0.7, so the classes overlap." in text


def test_a_table_ends_where_its_columns_stop_lining_up() -> None:
    # a fit's summary prints a line of statistics right under its table of estimates
    lines = [fixed("Coefficients:", 0),
             fixed("       value Std. Err", 1),
             fixed("alpha  3.120    0.410", 2),
             fixed("beta  17.005    1.320", 3),
             fixed("Deviance:  -841   AIC:  1690", 4)]
    assert texts(lines) == ["Coefficients:",
                            "alpha; value: 3.120; Std. Err: 0.410.",
                            "beta; value: 17.005; Std. Err: 1.320.",
                            "Deviance: -841 AIC: 1690"]
