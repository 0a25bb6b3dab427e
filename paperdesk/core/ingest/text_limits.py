"""Caps on how much text one PDF may bring in, far above any real paper, so that a generated or hostile file
is refused in one line instead of costing minutes of embedding and gigabytes of memory.

A dense real page holds under 2,000 words and a whole book under 500,000; a page of printed output or a
large table stays under 5,000. The inflate limits (inflate_limits.py) stop streams that decompress
absurdly; these stop what passes them yet still holds far more text than a paper: a page of 30 MB of
text operators, or a few pages holding tens of thousands of table cells.
"""

from __future__ import annotations

from paperdesk.core.errors import PdfError

PAGE_WORDS = 20_000  # words one page may hold
DOCUMENT_WORDS = 1_000_000  # words all pages together may hold
TABLE_CELLS = 5_000  # table cells read into table chunks per document; later tables stay in the text only


class TextBudget:
    """Counts a document's words page by page (raising PdfError past a cap) and its table cells (past the
    table cap, `tables_open` is False and no more tables are read)."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.page_words, self.document_words, self.table_cells = PAGE_WORDS, DOCUMENT_WORDS, TABLE_CELLS
        self.words = 0
        self.cells = 0

    def page(self, number: int, words: int) -> None:
        if words > self.page_words:
            raise PdfError(f"{self.name}: refused: page {number} holds over {self.page_words:,} words "
                           "(a real page holds under 2,000); is the PDF generated?")
        self.words += words
        if self.words > self.document_words:
            raise PdfError(f"{self.name}: refused: its pages hold over {self.document_words:,} words, "
                           "more than any paper or book; split it and add the parts")

    @property
    def tables_open(self) -> bool:
        return self.cells < self.table_cells

    def take_tables(self, tables: list, cells_of) -> list:
        """The tables that fit in what is left of the table cap, in order; counts their cells."""
        kept = []
        for table in tables:
            n = cells_of(table)
            if self.cells + n > self.table_cells:
                self.cells = self.table_cells  # closed: a later, smaller table would read out of order
                break
            self.cells += n
            kept.append(table)
        return kept
