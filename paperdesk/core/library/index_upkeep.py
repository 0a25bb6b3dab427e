"""Keeping the library's two search indexes in step with the store (a mixin of Library): re-embed after a
model change, rebuild both from the store, apply one add or remove to both and record it atomically.

Both indexes are derived data; the store's indexed chunks, with their stored embeddings, are the truth.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Sequence

from paperdesk.core.cancel import CancelToken
from paperdesk.core.db.diskspace import is_disk_full
from paperdesk.core.errors import StoreError
from paperdesk.core.library import reindex, repair
from paperdesk.core.progress import Progress, ProgressCallback
from paperdesk.core.search.embedder import DIM
from paperdesk.core.search.keyword import KeywordDoc
from paperdesk.core.search.vectors import StoredVectors

if TYPE_CHECKING:
    from paperdesk.core.db.store import Store
    from paperdesk.core.db.writelock import WriterLock
    from paperdesk.core.search.embedder import Embedder
    from paperdesk.core.search.keyword import KeywordIndex
    from paperdesk.core.search.vectors import VectorIndex


class IndexUpkeep:
    """Mixed into Library: the keyword index and the vector cache, kept in step with the store."""

    store: "Store"
    lock: "WriterLock"
    embedder: "Embedder"
    keyword: "KeywordIndex"
    vectors: "VectorIndex"

    def reindex_vectors(self, progress: ProgressCallback | None = None, cancel: CancelToken | None = None) -> int:
        """Re-embed every chunk with the current embedder (another backend or model made the index)."""
        with self.lock.hold(cancel=cancel):
            count = reindex.reembed_all(self.store, self.embedder, progress, cancel)
            self._stored_vectors(None).load_into(self.vectors)
            generation = self.store.vector_generation() + 1
            self.vectors.save_cache(generation)
            self.store.finish_indexing([], [], generation)
        return count

    def _stored_vectors(self, paper_ids: Sequence[str] | None) -> StoredVectors:
        rows: list[tuple[int, bytes | None]] = []
        if paper_ids is None:
            rows = self.store.embeddings_of(None)
        else:
            for pid in paper_ids:
                rows.extend(self.store.embeddings_of(pid))
        bad = [cid for cid, blob in rows if not blob or len(blob) % (4 * DIM)]
        if bad:
            raise StoreError(f"chunks {bad[:5]} have no stored embedding or a damaged one; "
                             "remove and re-add their papers")
        return StoredVectors.from_blobs(rows)

    def _rebuild_keyword(self, fresh: bool = False) -> None:
        if fresh:
            self.keyword.reset()
        docs: dict[str, list[KeywordDoc]] = {}
        for chunk, title in self.store.indexed_chunks():
            docs.setdefault(chunk.paper_id, []).append(
                KeywordDoc(chunk.id, chunk.paper_id, title, chunk.section, chunk.text)
            )
        try:
            self.keyword.replace_papers(docs, clear=True)
        except ValueError as exc:
            if fresh or is_disk_full(exc):
                raise
            self._rebuild_keyword(fresh=True)  # files a killed commit left behind: start from nothing

    def rebuild_indexes(self, progress: ProgressCallback | None = None) -> int:
        """Rebuild the keyword index and the vector cache from the store; return the chunk count.

        The fix for anything `paperdesk doctor` finds wrong with the indexes: both are
        derived data, and the store's indexed chunks (with their stored embeddings)
        are the truth. Opening the library has already finished half-done adds.
        """
        with self.lock.hold():
            total = self.store.count_chunks(indexed_only=True)
            if progress is not None:
                progress(Progress("keyword index", 0, total, "chunks"))
            self._rebuild_keyword()
            if progress is not None:
                progress(Progress("keyword index", total, total, "chunks"))
                progress(Progress("vector index", 0, total, "chunks"))
            self._stored_vectors(None).load_into(self.vectors)
            self.vectors.save_cache(self.store.vector_generation())
            if progress is not None:
                progress(Progress("vector index", total, total, "chunks"))
        return total

    def _index(self, add: Sequence[str], remove: Sequence[str], removed_chunks: Sequence[int]) -> None:
        """Make both indexes hold `add` and not `remove`, then record that atomically (writer lock held)."""
        docs: dict[str, list[KeywordDoc]] = {pid: [] for pid in add}
        for chunk, title in self.store.indexed_chunks(list(add)) if add else []:
            docs[chunk.paper_id].append(KeywordDoc(chunk.id, chunk.paper_id, title, chunk.section, chunk.text))
        try:
            self.keyword.replace_papers(docs, remove=remove)
        except ValueError as exc:
            if is_disk_full(exc):
                raise
            # A commit killed half-way can leave files tantivy refuses to overwrite (FileAlreadyExists):
            # the index is derived, so start it afresh from the store, then apply this change.
            repair._log.info("rebuilding the keyword index after: %s", exc)
            self._rebuild_keyword(fresh=True)
            self.keyword.replace_papers(docs, remove=remove)
        stored = self._stored_vectors(list(add)) if add else StoredVectors.empty()
        self.vectors.replace(stored.ids, stored.matrix, removed_chunks, stored.tail_ids, stored.tails)
        generation = self.store.vector_generation() + 1
        self.vectors.save_cache(generation)
        self.store.finish_indexing(list(add), list(remove), generation)

    def integrity_problems(self) -> list[str]:
        """What is wrong with the library (empty when store, indexes and files agree)."""
        return repair.integrity_problems(self)
