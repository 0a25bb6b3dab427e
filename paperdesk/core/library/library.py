"""The paper library: catalogue, PDFs and both search indexes kept in step.

Adding a paper parses and embeds it first (no writes, no lock), then, holding
the writer lock, copies the PDF in atomically, stores the paper as 'pending'
in one transaction, updates the indexes and marks it 'indexed'. Any failure
(disk full, a kill) undoes the add: here at once, or on the next open for a
killed process (library_repair.py). Opening never finishes someone else's add.
"""

from __future__ import annotations

import json
import os
import shutil
import sqlite3
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Sequence

import numpy as np

from paperdesk.core.atomic_file import atomic_write
from paperdesk.core.config import Settings
from paperdesk.core.cancel import CancelToken
from paperdesk.core.errors import InvalidArgumentError, InvalidIdError, PdfError, StoreError, UnknownPaperError
from paperdesk.core.ids import is_local_id, looks_like_arxiv, parse_arxiv_id, path_inside
from paperdesk.core.library import reindex
from paperdesk.core.library.arxiv_identity import arxiv_copy, stamped_record
from paperdesk.core.library.index_upkeep import IndexUpkeep
from paperdesk.core.ingest.dates import arxiv_id_date
from paperdesk.core.ingest.pdf import ParsedPdf, parse_pdf
from paperdesk.core.progress import Progress, ProgressCallback, stage_reporter
from paperdesk.core.search.embedder import DIM, Embedder
from paperdesk.core.search.hybrid import HybridRanker
from paperdesk.core.search.keyword import KeywordIndex
from paperdesk.core.search.vectors import VectorIndex
from paperdesk.core.sources.arxiv import ArxivClient, ArxivPaper
from paperdesk.core.db.pdf_paths import owned_pdf
from paperdesk.core.db import pdf_hashes
from paperdesk.core.library.private import make_private_home, tighten_library
from paperdesk.core.db.store import Chunk, Paper, Store
from paperdesk.core.library import repair
from paperdesk.core.db.diskspace import disk_full, is_disk_full
from paperdesk.core.db.writelock import WriterLock
from paperdesk.core.progress import counted



MAX_K = 10_000  # more hits than anyone reads; also keeps k inside what tantivy and numpy accept


@dataclass
class Hit:
    """One search result: a chunk of a paper, with where it is and why it matched."""

    paper_id: str
    title: str
    chunk_id: int
    page_start: int
    page_end: int
    section: str
    snippet: str
    score: float
    keyword_score: float | None
    vector_score: float | None
    via: str = ""  # how a hit that search did not rank was found: "memory: discussion 3 turn 2"

    def to_json(self) -> dict[str, Any]:
        return {
            "paper_id": self.paper_id,
            "title": self.title,
            "chunk_id": self.chunk_id,
            "page_start": self.page_start,
            "page_end": self.page_end,
            "section": self.section,
            "snippet": self.snippet,
            "score": self.score,
            "scores": {"keyword": self.keyword_score, "vector": self.vector_score},
            **({"via": self.via} if self.via else {}),
        }


@dataclass
class AddResult:
    paper: Paper
    created: bool  # False when the paper was already in the library
    bad_pages: list[int] = field(default_factory=list)  # pages MuPDF could not parse (kept as empty text)


class Library(IndexUpkeep):
    """Everything stored about papers, behind one object that the Desk and CLI use."""

    def __init__(self, settings: Settings, embedder: Embedder | None = None,
                 progress: ProgressCallback | None = None, on_wait: Callable[[str], None] | None = None) -> None:
        self.settings = settings
        self.home = settings.home
        self.papers_dir = self.home / "papers"
        try:
            make_private_home(self.home)
            self.papers_dir.mkdir(mode=0o700, exist_ok=True)
            (self.home / "index").mkdir(mode=0o700, exist_ok=True)
        except OSError as exc:
            raise StoreError(
                f"cannot use {self.home} as the data directory ({exc.strerror or exc}); "
                "set PAPERDESK_HOME or --home to a writable directory"
            ) from None
        # One writer at a time across store + keyword index + vector cache (see writelock.py).
        self.lock = WriterLock(self.home / "write.lock", wait=settings["library.lock_wait_seconds"], on_wait=on_wait)
        repair.refuse_a_lost_catalogue(self.home / "library.sqlite", self.papers_dir)
        self.store = Store(self.home / "library.sqlite")
        tighten_library(self.home)  # the files SQLite just made (0644 under the usual umask)
        self.keyword = KeywordIndex(self.home / "index" / "keyword")
        self.vectors = VectorIndex(self.home / "index")
        self.embedder = embedder or Embedder.from_settings(settings)
        self.ranker = HybridRanker.from_settings(self.keyword, self.vectors, self.embedder.encode_query, settings)
        self.notices: list[str] = []  # what opening did that the user must hear of (PDFs moved to lost+found)
        repair.reconcile(self)
        if reindex.needs_reindex(self.store, self.embedder):  # another backend or model made the vectors
            with self.lock.hold(wait=0) as held:
                if held:
                    self.reindex_vectors(progress)

    def close(self) -> None:
        self.store.close()
        self.lock.close()

    # -- adding and removing ------------------------------------------------------

    def add_pdf(
        self,
        source: Path,
        meta: ArxivPaper | None = None,
        progress: ProgressCallback | None = None,
        cancel: CancelToken | None = None,
        name: str | None = None,
    ) -> AddResult:
        """Ingest a PDF (a local file, or one downloaded for `meta`) into the library.

        A local PDF with arXiv's stamp on page 1 is that arXiv paper (see arxiv_identity.py): it is
        added under its arXiv id, or is the copy of that paper the library holds already.
        `name` is what messages call the file (a download's temp file is named after its paper).
        All or nothing: on any failure the paper, its PDF and its index entries are gone again.
        """
        source = Path(source)
        if not source.is_file():
            raise PdfError(f"no such file: {source}")
        same = self._same_pdf(source)
        if same is not None:  # these very bytes are a paper already, whatever the file is called
            if meta is not None and not same.arxiv_id:  # a local copy of this arXiv paper: now it is known as one
                same = self._adopt_arxiv(same, meta)
            return AddResult(same, False)
        parsed = parse_pdf(
            source,
            chunk_words=self.settings["ingest.chunk_words"],
            overlap_words=self.settings["ingest.overlap_words"],
            progress=stage_reporter(progress, "parse", "pages"),
            cancel=cancel,
            name=name,
        )
        paper = self._paper_record(parsed, meta or stamped_record(parsed))
        paper.sha256 = parsed.sha256
        existing = self._already_here(paper)
        if existing is not None and existing.index_state == "indexed":
            return AddResult(existing, False, parsed.bad_pages)
        if not parsed.chunks:
            raise PdfError(f"{name or source.name}: no text could be extracted into chunks; is it a scanned PDF?")
        vectors = self.embedder.encode_chunks(
            [c.text for c in parsed.chunks], progress=stage_reporter(progress, "embed", "chunks"), cancel=cancel
        )
        if cancel is not None:
            cancel.raise_if_cancelled()
        with self.lock.hold(cancel=cancel):
            reindex.mark_if_empty(self.store, self.embedder)
            repair.catch_up(self)  # another process may have written while we parsed
            repair.roll_back_pending(self)  # holding the lock, any pending add is a dead process's
            existing = self._already_here(paper)
            if existing is not None:  # added by another process meanwhile (a pending one was rolled back on open)
                return AddResult(existing, False, parsed.bad_pages)
            target = path_inside(self.papers_dir, paper.id + ".pdf")
            try:
                self._commit_add(paper, parsed, vectors, source, target, progress, cancel)
            except BaseException as exc:
                self._undo_add(paper.id, target, source)
                if is_disk_full(exc):
                    needed = source.stat().st_size + sum(len(c.text) * 3 + 4 * DIM * 2 * len(v)
                                                         for c, v in zip(parsed.chunks, vectors))
                    raise disk_full(needed, self.home, f"add {name or source.name}") from None
                if isinstance(exc, sqlite3.IntegrityError):
                    raise StoreError(f"{paper.id} is already being added by another paperdesk process") from None
                raise
        return AddResult(self.store.get_paper(paper.id) or paper, True, parsed.bad_pages)

    def _adopt_arxiv(self, paper: Paper, meta: ArxivPaper) -> Paper:
        """Give a paper added from a local PDF the arXiv record of the same PDF: its id, version, abstract,
        dates and categories (the title too, when arXiv has one); the paper keeps its library id."""
        fields = {"arxiv_id": meta.arxiv_id, "version": meta.version, "title": meta.title or paper.title,
                  "abstract": meta.abstract or paper.abstract, "published": meta.published or paper.published,
                  "updated": meta.updated or paper.updated, "source_url": meta.abs_url or paper.source_url}
        if meta.authors:
            fields["authors"] = json.dumps(meta.authors)
        if meta.categories:
            fields["categories"] = json.dumps(meta.categories)
        assignments = ", ".join(f"{k} = ?" for k in fields)
        with self.store.transaction() as conn:
            conn.execute(f"UPDATE papers SET {assignments} WHERE id = ?", (*fields.values(), paper.id))
        return self.store.get_paper(paper.id) or paper

    def _already_here(self, paper: Paper) -> Paper | None:
        """The paper stored under `paper`'s id, else the indexed copy of the same arXiv paper (and version)."""
        found = self.store.get_paper(paper.id)
        if found is None and paper.arxiv_id:
            found = arxiv_copy(self.store, paper.arxiv_id, paper.version)
        return found

    def _same_pdf(self, source: Path) -> Paper | None:
        """The indexed paper made from a PDF with exactly `source`'s bytes, if there is one."""
        try:
            digest = pdf_hashes.file_sha256(source)
        except OSError as exc:
            raise PdfError(f"cannot read {source}: {exc.strerror or exc}") from None
        found = pdf_hashes.paper_with(self.store, digest)
        paper = self.store.get_paper(found) if found else None
        return paper if paper is not None and paper.index_state == "indexed" else None

    def _commit_add(self, paper: Paper, parsed: ParsedPdf, vectors: list[np.ndarray], source: Path, target: Path,
                    progress: ProgressCallback | None, cancel: CancelToken | None) -> None:
        if source.resolve() != target:
            with source.open("rb") as src, atomic_write(target, target.with_name(target.name + ".tmp"), mode=0o600,
                                                        exclusive=False) as out:
                os.fchmod(out.fileno(), 0o600)  # a temp file a crash left keeps its own mode otherwise
                shutil.copyfileobj(src, out)
        paper.pdf_path = str(target)
        blobs = [rows.astype(np.float32).tobytes() for rows in vectors]
        self.store.add_paper(paper, parsed.pages, parsed.chunks, blobs)
        if progress is not None:
            progress(Progress("index", 0, len(parsed.chunks), "chunks"))
        self._index([paper.id], [], [])
        if reindex.needs_reindex(self.store, self.embedder):  # the ONNX export failed just now: torch made these
            self.reindex_vectors(progress, cancel)
        if progress is not None:
            progress(Progress("index", len(parsed.chunks), len(parsed.chunks), "chunks"))

    def _undo_add(self, paper_id: str, target: Path, source: Path) -> None:
        """Roll a failed add back; the PDF goes first, since on a full disk its space lets the rest write."""
        if source.resolve() != target:
            target.unlink(missing_ok=True)
        try:
            if self.store.get_paper(paper_id) is not None:
                chunk_ids = self.store.remove_paper(paper_id)
                self._index([], [paper_id], chunk_ids)
        except Exception as exc:  # still pending/tombstoned in the store: the next open finishes the undo
            repair._log.info("undoing the add of %s is left to the next start: %s", paper_id, exc)

    def _paper_record(self, parsed: ParsedPdf, meta: ArxivPaper | None) -> Paper:
        if meta is None:
            return Paper(id="local-" + parsed.sha256[:12], title=parsed.title or "Untitled", authors=parsed.authors,
                         published=parsed.published)
        # A file named like an arXiv id added offline, or a PDF with arXiv's stamp, has a bare record: the
        # PDF's own stamp dates it, else the month its id was issued in, else what else the PDF says.
        stamped = parsed.published if parsed.published_from == "arxiv" else None
        return Paper(
            id=meta.short_id,
            arxiv_id=meta.arxiv_id,
            version=meta.version,
            title=meta.title or parsed.title or "Untitled",
            authors=meta.authors or parsed.authors,
            abstract=meta.abstract,
            published=meta.published or stamped or arxiv_id_date(meta.arxiv_id) or parsed.published,
            updated=meta.updated,
            categories=meta.categories,
            source_url=meta.abs_url,
        )

    def add_arxiv(
        self,
        id_text: str,
        client: ArxivClient,
        progress: ProgressCallback | None = None,
        cancel: CancelToken | None = None,
        meta: ArxivPaper | None = None,
    ) -> AddResult:
        """Fetch an arXiv paper's metadata and PDF, then ingest it (no network if already here)."""
        wanted = parse_arxiv_id(id_text)
        for paper in self.store.find_by_arxiv(wanted.base):
            if wanted.version in (None, paper.version):
                return AddResult(paper, False)
        meta = meta or client.fetch(str(wanted), cancel=cancel)
        dest = path_inside(self.papers_dir, meta.short_id + ".download.tmp")
        client.download_pdf(meta, dest, progress=stage_reporter(progress, "download", "bytes"), cancel=cancel)
        try:
            return self.add_pdf(dest, meta, progress=progress, cancel=cancel, name=f"the PDF of {meta.short_id}")
        finally:
            dest.unlink(missing_ok=True)

    def remove(self, paper_id: str) -> None:
        """Delete a paper, its PDF (when it lies in this library's papers/) and its index entries."""
        paper = self.get(paper_id)
        with self.lock.hold():
            repair.catch_up(self)
            chunk_ids = self.store.remove_paper(paper.id)
            self._index([], [paper.id], chunk_ids)
            own = owned_pdf(self.home, paper.pdf_path)  # never a file outside this library's papers/
            if own is not None:
                own.unlink(missing_ok=True)

    # -- reading ------------------------------------------------------------------

    def get(self, ref: str) -> Paper:
        """A paper by library id or arXiv id (any accepted form; no version = newest)."""
        ref = ref.strip()
        paper = self.store.get_paper(ref)
        if paper is not None:
            return paper
        if looks_like_arxiv(ref):
            wanted = parse_arxiv_id(ref)
            for candidate in self.store.find_by_arxiv(wanted.base):
                if wanted.version in (None, candidate.version):
                    return candidate
        elif not is_local_id(ref):
            raise InvalidIdError(f"not a paper id: {ref!r}; use an arXiv id (2302.07302) or a library id from `paperdesk list`")
        raise UnknownPaperError(f"no paper {ref} in the library; `paperdesk list` shows what is there")

    def list(self, page: int = 1, per_page: int = 20) -> tuple[list[Paper], int]:
        """One page of papers (1-based) and the total count."""
        if page < 1:
            raise InvalidArgumentError(f"page {page} does not exist; pages start at 1")
        total = self.store.count_papers()
        if page > max(1, -(-total // per_page)):  # also keeps the offset inside SQLite's 64-bit integers
            raise InvalidArgumentError(f"page {page} does not exist; the library has {counted(max(1, -(-total // per_page)), 'page')}")
        return self.store.list_papers(per_page, (page - 1) * per_page), self.store.count_papers()

    def page_text(self, ref: str, page_no: int) -> tuple[Paper, str]:
        paper = self.get(ref)
        text = self.store.page_text(paper.id, page_no) if 1 <= page_no <= paper.page_count else None
        if text is None:
            raise InvalidArgumentError(f"{paper.id} has pages 1-{paper.page_count}; there is no page {page_no}")
        return paper, text

    def search(
        self,
        query: str,
        k: int = 10,
        mode: str | None = None,
        papers: Sequence[str] | None = None,
    ) -> list[Hit]:
        """Hybrid (or keyword / vector) search over chunks, with snippets and component scores."""
        if not query.strip():
            raise InvalidArgumentError("empty query: say what to search for")
        if not 1 <= k <= MAX_K:
            raise InvalidArgumentError(f"k must be between 1 and {MAX_K}, got {k}")
        paper_ids = [self.get(p).id for p in papers] if papers else None
        repair.catch_up(self)  # see what other processes (a CLI beside the TUI) committed
        allowed = np.asarray(self.store.chunk_ids_of(paper_ids), dtype=np.int64) if paper_ids else None
        ranked = self.ranker.rank(query, k, mode or self.settings["search.mode"], paper_ids, allowed)
        chunks = self.store.chunks_by_ids([r.chunk_id for r in ranked])
        titles = {pid: p.title for pid, p in self.store.papers_by_ids(list({c.paper_id for c in chunks.values()})).items()}
        snippets = self.keyword.snippets(query, [r.chunk_id for r in ranked])
        hits = []
        for r in ranked:
            chunk = chunks.get(r.chunk_id)
            if chunk is None:
                continue
            snippet = snippets.get(r.chunk_id) or _lead(chunk.text)
            hits.append(
                Hit(chunk.paper_id, titles.get(chunk.paper_id, ""), chunk.id, chunk.page_start, chunk.page_end,
                    chunk.section, snippet, r.score, r.keyword, r.vector)
            )
        return hits

    def passages(self, query: str, k: int = 3, papers: Sequence[str] | None = None) -> list[Chunk]:
        """The chunks hybrid search finds for `query`, best first."""
        hits = self.search(query, k=k, papers=papers)
        chunks = self.store.chunks_by_ids([h.chunk_id for h in hits])
        return [chunks[h.chunk_id] for h in hits if h.chunk_id in chunks]


def _lead(text: str, limit: int = 240) -> str:
    words = " ".join(text.split())
    return words if len(words) <= limit else words[:limit].rsplit(" ", 1)[0] + " ..."
