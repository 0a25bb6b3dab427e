"""The paper library: catalogue, PDFs and both search indexes kept in step.

Adding a paper parses and embeds it first (no writes), then copies the PDF in
atomically, then stores the paper as 'pending' in one transaction, then
updates the indexes and marks it 'indexed'. Opening the library finishes or
undoes whatever a killed process left half-way, so the indexes always match
the catalogue.
"""

from __future__ import annotations

import os
import shutil
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Sequence

import numpy as np

from paperdesk.config import Settings
from paperdesk.core.cancel import CancelToken
from paperdesk.core.errors import InvalidArgumentError, InvalidIdError, PdfError, StoreError, UnknownPaperError
from paperdesk.core.ids import is_local_id, looks_like_arxiv, parse_arxiv_id, path_inside
from paperdesk.core.ingest.pdf import ParsedPdf, parse_pdf
from paperdesk.core.progress import Progress, ProgressCallback, stage_reporter
from paperdesk.core.search.embedder import DIM, Embedder
from paperdesk.core.search.hybrid import HybridRanker
from paperdesk.core.search.keyword import KeywordDoc, KeywordIndex
from paperdesk.core.search.vectors import VectorIndex
from paperdesk.core.sources.arxiv import ArxivClient, ArxivPaper
from paperdesk.core.store import Chunk, Paper, Store

ORPHAN_AGE = 3600.0  # seconds before a stray temp file or unowned PDF counts as left behind


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
        }


@dataclass
class AddResult:
    paper: Paper
    created: bool  # False when the paper was already in the library


class Library:
    """Everything stored about papers, behind one object that the Desk and CLI use."""

    def __init__(self, settings: Settings, embedder: Embedder | None = None) -> None:
        self.settings = settings
        self.home = settings.home
        self.home.mkdir(parents=True, exist_ok=True)
        self.papers_dir = self.home / "papers"
        self.papers_dir.mkdir(exist_ok=True)
        self.store = Store(self.home / "library.sqlite")
        self.keyword = KeywordIndex(self.home / "index" / "keyword")
        self.vectors = VectorIndex(self.home / "index")
        model_dir = settings["embedding.model_path"]
        self.embedder = embedder or Embedder(Path(model_dir) if model_dir else None, settings["embedding.batch_size"])
        self.ranker = HybridRanker(
            self.keyword,
            self.vectors,
            self.embedder.encode_query,
            fusion_method=settings["search.fusion"],
            alpha=settings["search.alpha"],
            rrf_k=settings["search.rrf_k"],
            candidates=settings["search.candidates"],
        )
        self._reconcile()

    def close(self) -> None:
        self.store.close()

    # -- keeping the indexes in step ----------------------------------------------

    def _reconcile(self) -> None:
        """Repair what a killed process left: stale caches, tombstones, pending papers."""
        generation = self.store.vector_generation()
        if not self.vectors.load_cache(generation):
            ids, matrix = self._stored_vectors(None)
            self.vectors.set_all(ids, matrix)
            self.vectors.save_cache(generation)
        if self.keyword.num_docs() != self.store.count_chunks(indexed_only=True):
            self._rebuild_keyword()
        tombstones = self.store.tombstones()
        pending = self.store.pending_papers()
        if tombstones or pending:
            self._index(pending, [pid for pid, _ in tombstones], [c for _, ids in tombstones for c in ids])
        self._remove_orphan_files()

    def _stored_vectors(self, paper_ids: Sequence[str] | None) -> tuple[list[int], np.ndarray]:
        rows: list[tuple[int, bytes | None]] = []
        if paper_ids is None:
            rows = self.store.embeddings_of(None)
        else:
            for pid in paper_ids:
                rows.extend(self.store.embeddings_of(pid))
        missing = [cid for cid, blob in rows if blob is None]
        if missing:
            raise StoreError(f"chunks {missing[:5]} have no stored embedding; remove and re-add their papers")
        ids = [cid for cid, _ in rows]
        matrix = np.frombuffer(b"".join(blob for _, blob in rows), dtype=np.float32).reshape(len(ids), DIM)
        return ids, matrix

    def _rebuild_keyword(self) -> None:
        docs: dict[str, list[KeywordDoc]] = {}
        for chunk, title in self.store.indexed_chunks():
            docs.setdefault(chunk.paper_id, []).append(
                KeywordDoc(chunk.id, chunk.paper_id, title, chunk.section, chunk.text)
            )
        self.keyword.replace_papers(docs, clear=True)

    def _index(self, add: Sequence[str], remove: Sequence[str], removed_chunks: Sequence[int]) -> None:
        """Make both indexes hold `add` and not `remove`, then record that atomically."""
        docs: dict[str, list[KeywordDoc]] = {pid: [] for pid in add}
        for chunk, title in self.store.indexed_chunks(list(add)) if add else []:
            docs[chunk.paper_id].append(KeywordDoc(chunk.id, chunk.paper_id, title, chunk.section, chunk.text))
        self.keyword.replace_papers(docs, remove=remove)
        ids, matrix = self._stored_vectors(list(add)) if add else ([], np.zeros((0, DIM), np.float32))
        self.vectors.replace(ids, matrix, remove_ids=removed_chunks)
        generation = self.store.vector_generation() + 1
        self.vectors.save_cache(generation)
        self.store.finish_indexing(list(add), list(remove), generation)

    def _remove_orphan_files(self) -> None:
        """Delete PDFs no paper owns and temp files, once old enough not to be another process's."""
        known = {Path(p.pdf_path).name for p in self.store.list_papers() if p.pdf_path}
        cutoff = time.time() - ORPHAN_AGE
        for path in self.papers_dir.iterdir():
            orphan = path.name.endswith(".tmp") or (path.suffix == ".pdf" and path.name not in known)
            if orphan and path.stat().st_mtime < cutoff:
                path.unlink(missing_ok=True)

    # -- adding and removing ------------------------------------------------------

    def add_pdf(
        self,
        source: Path,
        meta: ArxivPaper | None = None,
        progress: ProgressCallback | None = None,
        cancel: CancelToken | None = None,
    ) -> AddResult:
        """Ingest a PDF (a local file, or one downloaded for `meta`) into the library."""
        source = Path(source)
        if not source.is_file():
            raise PdfError(f"no such file: {source}")
        parsed = parse_pdf(
            source,
            chunk_words=self.settings["ingest.chunk_words"],
            overlap_words=self.settings["ingest.overlap_words"],
            progress=stage_reporter(progress, "parse", "pages"),
            cancel=cancel,
        )
        paper = self._paper_record(parsed, meta)
        existing = self.store.get_paper(paper.id)
        if existing is not None:
            return AddResult(existing, False)
        if not parsed.chunks:
            raise PdfError(f"{source.name}: no text could be extracted into chunks; is it a scanned PDF?")
        vectors = self.embedder.encode(
            [c.text for c in parsed.chunks], progress=stage_reporter(progress, "embed", "chunks"), cancel=cancel
        )
        if cancel is not None:
            cancel.raise_if_cancelled()
        target = path_inside(self.papers_dir, paper.id + ".pdf")
        if source.resolve() != target:
            tmp = target.with_name(target.name + ".tmp")
            shutil.copyfile(source, tmp)
            os.replace(tmp, target)
        paper.pdf_path = str(target)
        blobs = [row.tobytes() for row in vectors.astype(np.float32)]
        self.store.add_paper(paper, parsed.pages, parsed.chunks, blobs)
        if progress is not None:
            progress(Progress("index", 0, len(parsed.chunks), "chunks"))
        self._index([paper.id], [], [])
        if progress is not None:
            progress(Progress("index", len(parsed.chunks), len(parsed.chunks), "chunks"))
        return AddResult(self.store.get_paper(paper.id) or paper, True)

    def _paper_record(self, parsed: ParsedPdf, meta: ArxivPaper | None) -> Paper:
        if meta is None:
            return Paper(id="local-" + parsed.sha256[:12], title=parsed.title or "Untitled", authors=parsed.authors)
        return Paper(
            id=meta.short_id,
            arxiv_id=meta.arxiv_id,
            version=meta.version,
            title=meta.title,
            authors=meta.authors,
            abstract=meta.abstract,
            published=meta.published,
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
            return self.add_pdf(dest, meta, progress=progress, cancel=cancel)
        finally:
            dest.unlink(missing_ok=True)

    def remove(self, paper_id: str) -> None:
        """Delete a paper, its PDF and its index entries."""
        paper = self.get(paper_id)
        chunk_ids = self.store.remove_paper(paper.id)
        self._index([], [paper.id], chunk_ids)
        if paper.pdf_path:
            Path(paper.pdf_path).unlink(missing_ok=True)

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
        return self.store.list_papers(per_page, (page - 1) * per_page), self.store.count_papers()

    def page_text(self, ref: str, page_no: int) -> tuple[Paper, str]:
        paper = self.get(ref)
        text = self.store.page_text(paper.id, page_no)
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
        if k < 1:
            raise InvalidArgumentError(f"k must be at least 1, got {k}")
        paper_ids = [self.get(p).id for p in papers] if papers else None
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
