"""Which arXiv paper a PDF is, and the library's own copy of an arXiv paper.

A local PDF whose first page carries arXiv's stamp ("arXiv:2302.07302v1 [cs.HC]
14 Feb 2023") is that arXiv paper, as a file named like its arXiv id is: it is
added under the arXiv id and the stamp's version (the library id a paper added
by its arXiv id gets), with the title, authors and date read from the PDF
itself and nothing fetched from arXiv. So adding the same paper again, as
another copy of the PDF or by its arXiv id (`add 2302.07302`, a find result),
finds the one already in the library.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from paperdesk.core.errors import InvalidIdError
from paperdesk.core.ids import parse_arxiv_id
from paperdesk.core.sources.arxiv_feed import ArxivPaper

if TYPE_CHECKING:
    from paperdesk.core.db.records import Paper
    from paperdesk.core.db.store import Store
    from paperdesk.core.ingest.pdf import ParsedPdf


def stamped_record(parsed: "ParsedPdf") -> ArxivPaper | None:
    """A bare arXiv record of the paper page 1's stamp names (the library fills in the rest from the PDF),
    or None for a PDF without a stamp."""
    if not parsed.arxiv_id:
        return None
    try:
        wanted = parse_arxiv_id(parsed.arxiv_id)
    except InvalidIdError:
        return None
    return ArxivPaper(wanted.base, wanted.version, "", abs_url=f"https://arxiv.org/abs/{wanted}")


def arxiv_copy(store: "Store", arxiv_id: str, version: int | None) -> "Paper | None":
    """The indexed paper the library holds as that arXiv paper: of that version, or of any when the version
    is not known (as `add` and `get` match an id given with or without its version)."""
    for paper in store.find_by_arxiv(arxiv_id):
        if paper.index_state == "indexed" and version in (None, paper.version):
            return paper
    return None
