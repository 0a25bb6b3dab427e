"""The catalogue's queries over page text, chunks and their embeddings (a mixin of Store)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Sequence

from paperdesk.core.db.records import Chunk

if TYPE_CHECKING:
    import numpy as np


class ChunkQueries:
    """Mixed into Store: reads of pages and chunks through its one connection (OwnedDb's `query`)."""

    query: Any  # OwnedDb.query

    def page_text(self, paper_id: str, page_no: int) -> str | None:
        rows = self.query("SELECT text FROM pages WHERE paper_id = ? AND page_no = ?", (paper_id, page_no))
        return rows[0][0] if rows else None

    def chunks_of(self, paper_id: str) -> list[Chunk]:
        rows = self.query(
            "SELECT id, paper_id, ordinal, page_start, page_end, section, text FROM chunks "
            "WHERE paper_id = ? ORDER BY ordinal",
            (paper_id,),
        )
        return [Chunk(*r) for r in rows]

    def chunks_by_ids(self, ids: Sequence[int]) -> dict[int, Chunk]:
        out: dict[int, Chunk] = {}
        for start in range(0, len(ids), 900):
            part = list(ids[start : start + 900])
            marks = ",".join("?" * len(part))
            for r in self.query(
                f"SELECT id, paper_id, ordinal, page_start, page_end, section, text FROM chunks WHERE id IN ({marks})",
                part,
            ):
                out[r[0]] = Chunk(*r)
        return out

    def embeddings_of(self, paper_id: str | None = None) -> list[tuple[int, bytes | None]]:
        """(chunk id, embedding blob) for one paper or for every indexed paper."""
        if paper_id is None:
            sql = (
                "SELECT c.id, c.embedding FROM chunks c JOIN papers p ON p.id = c.paper_id "
                "WHERE p.index_state = 'indexed' ORDER BY c.id"
            )
            return [(r[0], r[1]) for r in self.query(sql)]
        return [(r[0], r[1]) for r in self.query("SELECT id, embedding FROM chunks WHERE paper_id = ? ORDER BY id", (paper_id,))]

    def embeddings_by_ids(self, ids: Sequence[int]) -> dict[int, "np.ndarray"]:
        """Chunk id -> stored opening unit vector (float32), for the ids that have one."""
        import numpy as np

        from paperdesk.core.search.embedder import DIM

        out: dict[int, np.ndarray] = {}
        for start in range(0, len(ids), 900):
            part = list(ids[start : start + 900])
            marks = ",".join("?" * len(part))
            for cid, blob in self.query(f"SELECT id, embedding FROM chunks WHERE id IN ({marks})", part):
                if blob is not None and len(blob) >= 4 * DIM:  # the opening vector; tails follow (search/segments.py)
                    out[cid] = np.frombuffer(blob, dtype=np.float32, count=DIM)
        return out

    def count_chunks(self, indexed_only: bool = False) -> int:
        if indexed_only:
            sql = "SELECT COUNT(*) FROM chunks c JOIN papers p ON p.id = c.paper_id WHERE p.index_state = 'indexed'"
            return self.query(sql)[0][0]
        return self.query("SELECT COUNT(*) FROM chunks")[0][0]

    def chunk_ids_of(self, paper_ids: Sequence[str]) -> list[int]:
        marks = ",".join("?" * len(paper_ids))
        return [r[0] for r in self.query(f"SELECT id FROM chunks WHERE paper_id IN ({marks})", paper_ids)]

    def indexed_chunks(self, paper_ids: Sequence[str] | None = None) -> list[tuple[Chunk, str]]:
        """(chunk, paper title) for the given papers, or for every indexed paper."""
        sql = (
            "SELECT c.id, c.paper_id, c.ordinal, c.page_start, c.page_end, c.section, c.text, p.title "
            "FROM chunks c JOIN papers p ON p.id = c.paper_id "
        )
        if paper_ids is None:
            rows = self.query(sql + "WHERE p.index_state = 'indexed' ORDER BY c.id")
        else:
            marks = ",".join("?" * len(paper_ids))
            rows = self.query(sql + f"WHERE p.id IN ({marks}) ORDER BY c.id", list(paper_ids))
        return [(Chunk(*r[:7]), r[7]) for r in rows]
