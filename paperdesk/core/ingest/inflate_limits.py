"""Refusing PDFs whose content streams inflate far beyond any real paper (decompression bombs).

MuPDF interprets every byte of a page's decompressed content: a 40 KB file whose
stream inflates to 10 MB of text operators took 18 s and 790 MB to parse, and
larger ones run for minutes with gigabytes. Before a page is interpreted, its
content streams (and the form XObjects it draws) are inflated here chunk by
chunk, counting bytes and keeping none, so the check itself needs little
memory and stops as soon as a limit is passed.
"""

from __future__ import annotations

import zlib

import pymupdf

from paperdesk.core.errors import PdfError

MB = 1 << 20
PAGE_LIMIT = 32 * MB  # decompressed content one page may draw (dense vector plots reach a few MB)
DOCUMENT_LIMIT = 256 * MB  # decompressed content of all pages together
RATIO_FLOOR = 2 * MB  # a stream at least this large ...
RATIO_LIMIT = 200  # ... inflating more than this many times is a bomb (real content deflates 3-10x)
_STEP = 1 * MB  # output per zlib call while counting


class InflateGuard:
    """Counts what each page would make MuPDF interpret; raises PdfError past a limit."""

    def __init__(self, doc: pymupdf.Document, name: str, page_limit: int = PAGE_LIMIT,
                 document_limit: int = DOCUMENT_LIMIT) -> None:
        self.doc, self.name = doc, name
        self.page_limit, self.document_limit = page_limit, document_limit
        self.total = 0
        self._sizes: dict[int, int] = {}

    def check(self, page: pymupdf.Page) -> None:
        """Raise PdfError when this page, or the document so far, inflates past its limit."""
        xrefs = list(page.get_contents()) + [x[0] for x in page.get_xobjects() if x[0] > 0]
        size = 0
        for xref in dict.fromkeys(xrefs):
            size += self._size(xref, self.page_limit - size + 1)
            if size > self.page_limit:
                raise self._refuse(f"page {page.number + 1} inflates to over {_amount(self.page_limit)} of content")
        self.total += size
        if self.total > self.document_limit:
            raise self._refuse(f"its pages inflate to over {_amount(self.document_limit)} of content")

    def _size(self, xref: int, limit: int) -> int:
        if xref not in self._sizes:
            self._sizes[xref] = self._measure(xref, limit)
        return self._sizes[xref]

    def _measure(self, xref: int, limit: int) -> int:
        kind, value = self.doc.xref_get_key(xref, "Filter")
        raw = self.doc.xref_stream_raw(xref) or b""
        if kind == "null":
            return len(raw)
        if value.strip("[] ") != "/FlateDecode":  # other filters are rare in content streams: MuPDF decodes them
            return len(self.doc.xref_stream(xref) or b"")
        size = _inflated(raw, limit)
        if size >= RATIO_FLOOR and size > RATIO_LIMIT * max(1, len(raw)):
            raise self._refuse(f"a content stream of {_amount(len(raw))} inflates to over {_amount(size)} "
                               f"(more than {RATIO_LIMIT} times)")
        return size

    def _refuse(self, why: str) -> PdfError:
        return PdfError(f"{self.name}: refused: {why}, far beyond any real paper (a decompression bomb?); "
                        "check where the file came from")


def _amount(size: int) -> str:
    return f"{size // MB} MB" if size >= MB else f"{max(1, size // 1024)} KB"


def _inflated(raw: bytes, limit: int) -> int:
    """Bytes `raw` inflates to, counted without keeping them; stops once past `limit` (or at damage)."""
    inflater = zlib.decompressobj()
    size = 0
    data = raw
    try:
        while data:
            out = inflater.decompress(data, _STEP)
            size += len(out)
            if size > limit or (not out and data == inflater.unconsumed_tail):
                break
            data = inflater.unconsumed_tail
        else:
            size += len(inflater.flush())
    except zlib.error:  # damaged data: MuPDF reads what it can, and ingest reports the damaged page
        pass
    return size
