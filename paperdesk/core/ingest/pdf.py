"""PDF ingest: clean page text, title, authors and section-aware chunks.

`parse_pdf` reads a file and writes nothing. Every failure a user can act on
is a `PdfError` whose one-line message says what is wrong and what to do.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

import pymupdf

from paperdesk.core.cancel import CancelToken
from paperdesk.core.errors import PdfError
from paperdesk.core.ingest import arxiv_stamp, dates, figures, frontmatter, layout, tables as table_reader
from paperdesk.core.ingest.chunking import FRONT_MATTER, Para, captions_after_sentences, chunk_pages, chunk_paragraphs
from paperdesk.core.ingest.inflate_limits import InflateGuard
from paperdesk.core.ingest.text_limits import TextBudget
from paperdesk.core.db.store import NewChunk

__all__ = ["ParsedPdf", "parse_pdf", "chunk_pages", "chunk_paragraphs", "Para"]


@dataclass
class ParsedPdf:
    """What ingest keeps of a PDF."""

    title: str
    authors: list[str]
    pages: list[str]  # cleaned text of each page; pages[0] is page 1
    chunks: list[NewChunk]  # section-aware chunks, 1-based page_start/page_end
    sha256: str  # of the file bytes (used for local ids)
    bad_pages: list[int] = field(default_factory=list)  # 1-based pages MuPDF reported damage on
    published: str | None = None  # ISO date ("2023-02-14", "2023-02", "2023") the paper appeared
    published_from: str = ""  # where that date came from: "arxiv" (its stamp), "page" or "metadata"
    arxiv_id: str = ""  # the id on page 1's arXiv stamp, version kept ("2302.07302v1"); "" without a stamp


def _read(path: Path) -> bytes:
    if not path.exists():
        raise PdfError(f"{path}: file not found; check the path and try again")
    if path.is_dir():
        raise PdfError(f"{path}: is a directory, not a PDF file; give the path of a .pdf file")
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise PdfError(f"{path}: cannot read the file ({exc.strerror}); check its permissions") from exc
    if not data:
        raise PdfError(f"{path.name}: the file is empty (0 bytes); download it again")
    if b"%PDF-" not in data[:1024]:
        raise PdfError(f"{path.name}: not a PDF file (no %PDF header); check that you picked the right file")
    return data


def _corrupt(path: Path) -> PdfError:
    return PdfError(
        f"{path.name}: the PDF is corrupt or truncated and cannot be read; "
        "download it again or repair it (e.g. qpdf in.pdf out.pdf)"
    )


def _open(path: Path, data: bytes) -> pymupdf.Document:
    # MuPDF would print repair chatter on stderr, which garbles a terminal UI.
    pymupdf.TOOLS.mupdf_display_errors(False)
    pymupdf.TOOLS.mupdf_display_warnings(False)
    try:
        doc = pymupdf.open(stream=data, filetype="pdf")
    except Exception as exc:  # MuPDF raises FileDataError and plain RuntimeErrors
        raise _corrupt(path) from exc
    finally:
        pymupdf.TOOLS.reset_mupdf_warnings()
    if doc.needs_pass:
        doc.close()
        raise PdfError(
            f"{path.name}: the PDF is password-protected; remove the password first "
            "(e.g. qpdf --decrypt --password=PASSWORD in.pdf out.pdf) and ingest the copy"
        )
    # MuPDF silently rebuilds a cut-off file: repaired without its end marker (or pages) is broken.
    if doc.is_repaired and (b"%%EOF" not in data[-2048:] or doc.page_count == 0):
        doc.close()
        raise _corrupt(path)
    if doc.page_count == 0:
        doc.close()
        raise PdfError(f"{path.name}: the PDF has no pages; check the file or download it again")
    return doc


def _no_text_layer(doc: pymupdf.Document, pages: list[layout.PageLines]) -> bool:
    chars = sum(len(ln.text) for pg in pages for ln in pg.lines)
    if chars >= 50 * len(pages):
        return False
    if not any(c.isalpha() for pg in pages for ln in pg.lines for c in ln.text):
        return True
    # A few letters per page over full-page images: a scan with a stamp or watermark.
    with_images = sum(1 for i in range(doc.page_count) if doc.load_page(i).get_images())
    return with_images * 2 >= doc.page_count


def parse_pdf(
    path: Path,
    chunk_words: int = 300,
    overlap_words: int = 50,
    progress: Callable[[int, int], None] | None = None,
    cancel: CancelToken | None = None,
    name: str | None = None,
) -> ParsedPdf:
    """Parse a PDF into title, authors, cleaned page texts and section-aware chunks.

    `progress(pages_done, pages_total)` is called after each page; `cancel`
    is checked before each page and raises CancelledError. Raises PdfError for
    a missing, non-PDF, corrupt, truncated, encrypted, empty or image-only file.
    `name` replaces the file name in messages (a download's temp file is named after its paper).
    """
    if chunk_words < 10 or not 0 <= overlap_words <= chunk_words // 2:
        raise PdfError(
            f"ingest.chunk_words = {chunk_words} and ingest.overlap_words = {overlap_words} do not fit: "
            "chunk_words must be at least 10 and overlap_words at most half of it; fix the config"
        )
    path = Path(path)
    try:
        return _parse(path, chunk_words, overlap_words, progress, cancel)
    except PdfError as exc:
        if name is None:
            raise
        raise PdfError(str(exc).replace(str(path), name).replace(path.name, name)) from None


def _parse(path: Path, chunk_words: int, overlap_words: int, progress: Callable[[int, int], None] | None,
           cancel: CancelToken | None) -> ParsedPdf:
    data = _read(path)
    doc = _open(path, data)
    try:
        meta = doc.metadata or {}
        total = doc.page_count
        pages: list[layout.PageLines] = []
        bad_pages: list[int] = []
        found: list[table_reader.Table] = []
        guard = InflateGuard(doc, path.name)
        budget = TextBudget(path.name)
        for i in range(total):
            if cancel is not None:
                cancel.raise_if_cancelled()
            pymupdf.TOOLS.reset_mupdf_warnings()
            try:
                page = doc.load_page(i)
                guard.check(page)  # a decompression bomb is refused before MuPDF interprets it
                textpage = layout.text_page(page)  # read once: the layout and the table reader share it
                raw = layout.page_dict(page, textpage)
            except PdfError:
                raise
            except Exception as exc:  # a page MuPDF cannot interpret
                raise _corrupt(path) from exc
            # A damaged content stream still yields a page, minus what followed the damage: say which.
            if "error" in pymupdf.TOOLS.mupdf_warnings().lower():
                bad_pages.append(i + 1)
            pages.append(layout.page_lines(raw, i + 1, keep_spans=i < 2))
            pages[-1].figures = figures.page_figures(page, pages[-1].lines)
            budget.page(i + 1, sum(len(ln.text.split()) for ln in pages[-1].lines))
            if budget.tables_open and table_reader.may_hold_table([ln.text for ln in pages[-1].lines]):
                found += budget.take_tables(_tables_of(page, i + 1, textpage), _cells)
            if progress is not None:
                progress(i + 1, total)
        if _no_text_layer(doc, pages):
            raise PdfError(
                f"{path.name}: the PDF has no text layer (scanned?); run OCR first, "
                "e.g. ocrmypdf in.pdf out.pdf, and ingest the result"
            )
    finally:
        pymupdf.TOOLS.reset_mupdf_warnings()
        doc.close()
    parsed = _assemble(path, pages, meta, hashlib.sha256(data).hexdigest(), chunk_words, overlap_words)
    parsed.bad_pages = bad_pages
    if parsed.chunks:  # the tables join the text's chunks, after them (a paper of tables alone is no paper)
        parsed.chunks += table_reader.table_chunks(found, chunk_words)
    return parsed


def _cells(table: table_reader.Table) -> int:
    return sum(len(row) for row in table.rows) + len(table.header)


def _tables_of(page: pymupdf.Page, number: int, textpage: pymupdf.TextPage) -> list[table_reader.Table]:
    """The page's captioned tables; a table the reader cannot make out costs that table, never the ingest."""
    try:
        return table_reader.page_tables(page, number, textpage)
    except Exception:  # noqa: BLE001 - PyMuPDF's drawings and table finder on a damaged page
        return []


def _assemble(path: Path, pages: list[layout.PageLines], meta: dict, digest: str,
              chunk_words: int, overlap_words: int) -> ParsedPdf:
    # The title page is the first with text (a cover image may come before it).
    first = next((pg for pg in pages[:2] if pg.lines), pages[0])
    body = layout.body_font_size(pages)
    title_lines = [first.lines[i] for i in frontmatter.find_title(first.lines, first.height, body)]
    page_text = "\n".join(ln.text for ln in first.lines)  # before running lines go: the venue line stays
    page_title = frontmatter.title_text(title_lines)
    meta_title = frontmatter.sensible_title(meta.get("title", ""), page_text)
    title = meta_title or page_title or path.stem
    stamp = first.stamp or pages[0].stamp  # the title page's stamp only: never an id cited further on
    published, published_from = dates.published_date(stamp, page_text, meta)

    protect = frozenset(map(id, title_lines))
    layout.strip_running_lines(pages, title, protect=protect)
    figures.drop_figure_text(pages, body, protect)  # a plot's ticks and labels are not sentences of the paper
    t1 = max(map(first.lines.index, title_lines)) + 1 if title_lines else 0
    front_end = layout.front_matter_end(first.lines, body, t1)
    below = max((ln.y1 for ln in title_lines), default=0.0)
    front = [ln for ln in first.lines[t1:front_end if front_end > t1 else None] if id(ln) not in protect]
    authors = [frontmatter.proper_case(n, page_text) for n in frontmatter.sensible_authors(meta.get("author", ""))]
    authors = authors or frontmatter.find_authors(frontmatter.front_lines(front, below), page_text)

    vocab = layout.build_vocab(pages)
    paras_by_page = [
        layout.page_paragraphs(pg, body, vocab, skip=front_end if pg is first else 0,
                               front=FRONT_MATTER if pg is first and front_end else None)
        for pg in pages
    ]
    captions_after_sentences(paras_by_page)
    all_paras: list[Para] = [p for paras in paras_by_page for p in paras]
    texts = ["\n\n".join(p.text for p in paras) for paras in paras_by_page]
    chunks = chunk_paragraphs(all_paras, chunk_words, overlap_words)
    return ParsedPdf(title=title, authors=authors, pages=texts, chunks=chunks, sha256=digest, published=published,
                     published_from=published_from, arxiv_id=arxiv_stamp.stamp_id(stamp))
