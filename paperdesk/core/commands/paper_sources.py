"""Where `add` takes a paper from: a local PDF, an arXiv id, or an arXiv URL.

A local file named like an arXiv id (`2302.07302v1.pdf`, as arXiv names its
downloads) is recognised as that paper: it gets the arXiv id as its library
id, and its arXiv metadata when arXiv can be reached; offline it keeps the
title and authors read from the PDF.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from paperdesk.core.errors import InvalidIdError, NetworkError, NotFoundError, PdfError
from paperdesk.core.ids import ArxivId, looks_like_arxiv, parse_arxiv_id

if TYPE_CHECKING:
    from paperdesk.core.cancel import CancelToken
    from paperdesk.core.library.library import AddResult, Library
    from paperdesk.core.progress import ProgressCallback
    from paperdesk.core.sources.arxiv import ArxivClient, ArxivPaper

_URL = re.compile(r"^[a-z][a-z0-9+.-]*://", re.I)


@dataclass(frozen=True)
class PaperSource:
    """What an `add` argument names: a local file (`path`) or a paper on arXiv (`arxiv`)."""

    text: str
    path: Path | None = None
    arxiv: ArxivId | None = None  # for a file: the id its name carries, if any

    @property
    def local(self) -> bool:
        return self.path is not None


def parse_source(text: str) -> PaperSource:
    """Classify an `add` argument; a clear error when it is none of a PDF file, an arXiv id or URL."""
    raw = text.strip().strip("'\"")
    if not raw:
        raise InvalidIdError("add needs a PDF file, an arXiv id (2302.07302) or an arXiv URL")
    path = Path(raw).expanduser()
    if not _URL.match(raw) and path.is_file():
        return file_source(path, raw)
    if looks_like_arxiv(raw):
        return PaperSource(raw, arxiv=parse_arxiv_id(raw))
    if _URL.match(raw):
        raise InvalidIdError(f"add: {raw!r} is not an arXiv URL; download the PDF and add the file instead")
    if raw.lower().endswith(".pdf"):
        raise PdfError(f"no such file: {raw}")
    shown = raw if len(raw) <= 80 else raw[:77] + "..."
    raise InvalidIdError(f"add: {shown!r} is neither a file nor an arXiv id; use a PDF path, an id like "
                         "2302.07302, or an arXiv URL")


def arxiv_id_of_file(path: Path) -> ArxivId | None:
    """The arXiv id a file's name carries (`2302.07302v1.pdf` -> 2302.07302v1), or None."""
    stem = path.name[:-4] if path.name.lower().endswith(".pdf") else path.stem
    try:
        return parse_arxiv_id(stem)
    except InvalidIdError:
        return None


def file_source(path: Path, text: str = "") -> PaperSource:
    """A local file as an `add` source, with the arXiv id its name carries."""
    return PaperSource(text or str(path), path=path, arxiv=arxiv_id_of_file(path))


def add_source(library: "Library", source: PaperSource, client: "ArxivClient | None",
               progress: "ProgressCallback | None" = None, cancel: "CancelToken | None" = None) -> "AddResult":
    """Add what `source` names to the library; `client` is None when offline (no metadata lookups)."""
    if not source.local:
        assert source.arxiv is not None
        if client is None:
            raise NetworkError(f"offline: cannot download {source.arxiv}; add a local PDF file instead")
        return library.add_arxiv(str(source.arxiv), client, progress=progress, cancel=cancel)
    assert source.path is not None
    meta = _file_metadata(source.arxiv, client, cancel) if source.arxiv else None
    return library.add_pdf(source.path, meta, progress=progress, cancel=cancel)


def _file_metadata(aid: ArxivId, client: "ArxivClient | None", cancel: "CancelToken | None") -> "ArxivPaper":
    """arXiv's record for a file named like an id; offline (or unknown there) a bare record with the id."""
    from paperdesk.core.sources.arxiv import ArxivPaper

    if client is not None:
        try:
            meta = client.fetch(str(aid), cancel=cancel)
            if aid.version is None or meta.version == aid.version:
                return meta
        except (NetworkError, NotFoundError):
            pass  # the file is here: add it under its id with what the PDF says
    # title and authors empty: the library fills them from the PDF
    return ArxivPaper(aid.base, aid.version, "", abs_url=f"https://arxiv.org/abs/{aid}")
