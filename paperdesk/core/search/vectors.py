"""Vector search: normalised float32 matrices of chunk embeddings in memory.

Each chunk has its opening vector (`matrix`, one row per chunk, in `ids`) and,
when its text runs past the model's window, tail vectors (`tails`, rows grouped
by chunk, in `tail_ids`; see segments.py). A chunk's score for a query is the
mean of its opening cosine and its best cosine over all its vectors: the start
of a chunk says what it is about, its best part whether it answers the query.
A chunk without tails scores its plain cosine. (Best part alone, max-pooling,
ranked SciFact dev 0.804 alone but lifted the hybrid less, 0.826 vs 0.836
held out; see bench/README.md.)

SQLite keeps every chunk's vectors; `vectors*.npy` on disk are a cache of the
matrices, stamped with a generation number that the store also keeps. A stale
or broken cache is rebuilt from the store.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Sequence

import numpy as np

from paperdesk.core.atomic_file import atomic_write, write_bytes
from paperdesk.core.cores import usable_cores
from paperdesk.core.search.embedder import DIM


def _dot(matrix: np.ndarray, query: np.ndarray) -> np.ndarray:
    """matrix @ query, with BLAS's threads when this process may run on more than one core.

    On 2 free cores BLAS's threaded product is the faster (212k x 384: `@` 7.7 ms, single-threaded einsum
    10.3 ms); a process pinned to one core gains nothing from threads that wait on each other. The choice
    follows what this process may use (its CPU affinity), never other processes' recent load, so the same
    command takes the same path from one minute to the next.
    """
    if usable_cores() > 1:
        return matrix @ query
    return np.einsum("ij,j->i", matrix, query)


def _atomic_save(path: Path, array: np.ndarray) -> None:
    with atomic_write(path, path.with_name(path.name + ".tmp"), exclusive=False) as fh:
        np.save(fh, array)


LAYOUT = 2  # cache files: 1 had no tails


@dataclass
class StoredVectors:
    """Chunk vectors as the store keeps them, split into opening vectors and tails."""

    ids: list[int]
    matrix: np.ndarray
    tail_ids: list[int]
    tails: np.ndarray

    @classmethod
    def empty(cls) -> "StoredVectors":
        return cls([], np.zeros((0, DIM), np.float32), [], np.zeros((0, DIM), np.float32))

    @classmethod
    def from_blobs(cls, rows: Sequence[tuple[int, bytes]]) -> "StoredVectors":
        """From (chunk id, blob) rows; a blob is the opening vector then the tails, float32."""
        return cls.from_arrays([cid for cid, _ in rows],
                               [np.frombuffer(blob, dtype=np.float32).reshape(-1, DIM) for _, blob in rows])

    @classmethod
    def from_arrays(cls, ids: Sequence[int], arrays: Sequence[np.ndarray]) -> "StoredVectors":
        """From each chunk's (1 + tails, DIM) array, as `Embedder.encode_chunks` gives them."""
        if not len(arrays):
            return cls.empty()
        ids = list(ids)
        tail_ids = [cid for cid, a in zip(ids, arrays) for _ in range(len(a) - 1)]
        tails = [a[1:] for a in arrays if len(a) > 1]
        return cls(ids, np.stack([a[0] for a in arrays]), tail_ids,
                   np.concatenate(tails) if tails else np.zeros((0, DIM), np.float32))

    def load_into(self, index: "VectorIndex") -> None:
        index.set_all(self.ids, self.matrix, self.tail_ids, self.tails)


def _rows(array: np.ndarray | None) -> np.ndarray:
    """`array` as contiguous float32 rows of DIM (none for None)."""
    if array is None:
        return np.zeros((0, DIM), dtype=np.float32)
    return np.ascontiguousarray(array, dtype=np.float32).reshape(-1, DIM)


class VectorIndex:
    """Exact inner-product search over unit vectors (cosine similarity), chunk tails included."""

    def __init__(self, directory: Path) -> None:
        self.directory = directory
        directory.mkdir(parents=True, exist_ok=True)
        self.matrix = np.zeros((0, DIM), dtype=np.float32)
        self.ids = np.zeros(0, dtype=np.int64)
        self.tails = np.zeros((0, DIM), dtype=np.float32)
        self.tail_ids = np.zeros(0, dtype=np.int64)  # grouped: a chunk's tail rows are contiguous
        self.generation = -1
        self._order: np.ndarray | None = None  # argsort of ids, for scores_of
        self._groups: tuple[np.ndarray, np.ndarray, np.ndarray] | None = None  # tail group starts, ends, row in ids
        self._group_of_row = np.zeros(0, dtype=np.int64)

    # -- persistence ------------------------------------------------------------

    @property
    def _files(self) -> tuple[Path, Path, Path, Path, Path]:
        d = self.directory
        return (d / "vectors.npy", d / "vectors.ids.npy", d / "vectors.json",
                d / "vectors.tails.npy", d / "vectors.tail_ids.npy")

    def load_cache(self, generation: int) -> bool:
        """Load the on-disk matrices if they carry this generation; False if stale, old or broken."""
        mat_path, ids_path, info_path, tails_path, tail_ids_path = self._files
        try:
            info = json.loads(info_path.read_text())
            if info.get("generation") != generation or info.get("layout") != LAYOUT:
                return False
            matrix, ids = np.load(mat_path), np.load(ids_path)
            tails, tail_ids = np.load(tails_path), np.load(tail_ids_path)
        except (OSError, ValueError, json.JSONDecodeError):
            return False
        if matrix.ndim != 2 or matrix.shape[1] != DIM or len(ids) != len(matrix):
            return False
        if tails.ndim != 2 or tails.shape[1] != DIM or len(tail_ids) != len(tails) or len(tails) != info.get("tails"):
            return False
        self.set_all(ids, matrix, tail_ids, tails)
        self.generation = generation
        return True

    def save_cache(self, generation: int) -> None:
        mat_path, ids_path, info_path, tails_path, tail_ids_path = self._files
        # The stamp goes last: a crash before it leaves a cache that reads as stale.
        info_path.unlink(missing_ok=True)
        _atomic_save(mat_path, self.matrix)
        _atomic_save(ids_path, self.ids)
        _atomic_save(tails_path, self.tails)
        _atomic_save(tail_ids_path, self.tail_ids)
        write_bytes(info_path, json.dumps({"generation": generation, "count": len(self.ids), "dim": DIM,
                                           "layout": LAYOUT, "tails": len(self.tail_ids)}).encode(),
                    info_path.with_name(info_path.name + ".tmp"), exclusive=False)
        self.generation = generation

    def set_all(self, ids: Sequence[int], matrix: np.ndarray, tail_ids: Sequence[int] = (),
                tails: np.ndarray | None = None) -> None:
        """Every chunk's opening vector, and the tail vectors with the chunk id of each."""
        self.ids = np.asarray(ids, dtype=np.int64)
        self.matrix = _rows(matrix).reshape(len(self.ids), DIM)
        tail_ids = np.asarray(tail_ids, dtype=np.int64)
        order = np.argsort(tail_ids, kind="stable")  # group each chunk's tails, keeping their order
        self.tail_ids = tail_ids[order]
        self.tails = np.ascontiguousarray(_rows(tails).reshape(len(tail_ids), DIM)[order])
        self._changed()

    def _changed(self) -> None:
        self._order = None
        self._groups = None

    # -- edits ------------------------------------------------------------------

    def replace(self, add_ids: Sequence[int], add_vectors: np.ndarray, remove_ids: Sequence[int] = (),
                add_tail_ids: Sequence[int] = (), add_tails: np.ndarray | None = None) -> None:
        """Drop `remove_ids` and any of `add_ids` already present (with their tails), then append."""
        self._changed()
        drop = np.concatenate([np.asarray(remove_ids, dtype=np.int64), np.asarray(add_ids, dtype=np.int64)])
        if len(drop) and len(self.ids):
            keep = ~np.isin(self.ids, drop)
            self.ids, self.matrix = self.ids[keep], self.matrix[keep]
            keep = ~np.isin(self.tail_ids, drop)
            self.tail_ids, self.tails = self.tail_ids[keep], self.tails[keep]
        if len(add_ids):
            self.ids = np.concatenate([self.ids, np.asarray(add_ids, dtype=np.int64)])
            self.matrix = np.ascontiguousarray(np.vstack([self.matrix, add_vectors.astype(np.float32)]))
        if len(add_tail_ids):
            new_ids = np.asarray(add_tail_ids, dtype=np.int64)
            order = np.argsort(new_ids, kind="stable")
            self.tail_ids = np.concatenate([self.tail_ids, new_ids[order]])
            self.tails = np.ascontiguousarray(np.vstack([self.tails, _rows(add_tails)[order]]))

    # -- scoring ----------------------------------------------------------------

    def _tail_groups(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(start, end) tail rows of each chunk that has tails, and that chunk's row in `ids`."""
        groups = self._groups
        if groups is None:
            starts = np.flatnonzero(np.r_[True, self.tail_ids[1:] != self.tail_ids[:-1]]) if len(self.tail_ids) \
                else np.zeros(0, dtype=np.int64)
            ends = np.r_[starts[1:], len(self.tail_ids)].astype(np.int64) if len(starts) else starts
            rows = self._rows_of(self.tail_ids[starts])
            of_row = np.full(len(self.ids), -1, dtype=np.int64)  # row in ids -> its tail group
            of_row[rows[rows >= 0]] = np.flatnonzero(rows >= 0)
            self._group_of_row = of_row  # before _groups: a reader that sees the groups sees this too
            self._groups = groups = (starts, ends, rows)
        return groups

    def _rows_of(self, wanted: np.ndarray) -> np.ndarray:
        """The row in `ids` of each wanted chunk id, -1 where it is not in the index."""
        if not len(self.ids):
            return np.full(len(wanted), -1, dtype=np.int64)
        if self._order is None or len(self._order) != len(self.ids):
            self._order = np.argsort(self.ids, kind="stable")  # once per change, not per query
        at = np.minimum(np.searchsorted(self.ids, wanted, sorter=self._order), len(self._order) - 1)
        rows = self._order[at]
        return np.where(self.ids[rows] == wanted, rows, -1)

    @staticmethod
    def _blend(opening: np.ndarray, best_tail: np.ndarray) -> np.ndarray:
        """A chunk's score: the mean of its opening cosine and its best cosine."""
        return (opening + np.maximum(opening, best_tail)) / 2

    def scores_of(self, query: np.ndarray, ids: Sequence[int]) -> np.ndarray:
        """The score of `query` for each of `ids` (NaN for ids not in the index)."""
        out = np.full(len(ids), np.nan, dtype=np.float32)
        if not len(ids) or not len(self.ids):
            return out
        q = np.asarray(query, dtype=np.float32)
        rows = self._rows_of(np.asarray(ids, dtype=np.int64))
        found = rows >= 0
        out[found] = self.matrix[rows[found]] @ q
        starts, ends, _ = self._tail_groups()
        if len(starts) and found.any():
            groups = self._group_of_row[rows[found]]
            has = groups >= 0
            if has.any():
                best = self._best_tails(q, starts[groups[has]], ends[groups[has]])
                positions = np.flatnonzero(found)[has]
                out[positions] = self._blend(out[positions], best)
        return out

    def __len__(self) -> int:
        return len(self.ids)

    # -- search -----------------------------------------------------------------

    def search(self, query: np.ndarray, k: int, allowed: np.ndarray | None = None) -> list[tuple[int, float]]:
        """Top-k (chunk id, score), best first; `allowed` restricts to those chunk ids."""
        if k <= 0 or len(self.ids) == 0:
            return []
        q = np.asarray(query, dtype=np.float32)
        starts, ends, group_rows = self._tail_groups()
        if allowed is not None:
            rows = np.flatnonzero(np.isin(self.ids, allowed))
            if len(rows) == 0:
                return []
            scores = _dot(self.matrix[rows], q)
            ids = self.ids[rows]
            kept = np.flatnonzero(np.isin(group_rows, rows))
            self._add_tails(scores, q, starts[kept], ends[kept], np.searchsorted(rows, group_rows[kept]))
        else:
            scores = _dot(self.matrix, q)
            ids = self.ids
            self._add_tails(scores, q, starts, ends, group_rows, whole=True)
        k = min(k, len(scores))
        top = np.argpartition(-scores, k - 1)[:k]
        top = top[np.argsort(-scores[top], kind="stable")]
        return [(int(ids[i]), float(scores[i])) for i in top]

    def _best_tails(self, q: np.ndarray, starts: np.ndarray, ends: np.ndarray) -> np.ndarray:
        """The best tail cosine of each group (given by its tail rows start:end)."""
        sizes = ends - starts
        offsets = np.r_[0, np.cumsum(sizes)[:-1]]
        picked = np.repeat(starts - offsets, sizes) + np.arange(sizes.sum())
        return np.maximum.reduceat(_dot(self.tails[picked], q), offsets)

    def _add_tails(self, scores: np.ndarray, q: np.ndarray, starts: np.ndarray, ends: np.ndarray,
                   at: np.ndarray, whole: bool = False) -> None:
        """Blend each group's best tail cosine into `scores[at]`, in place."""
        if not len(starts):
            return
        best = np.maximum.reduceat(_dot(self.tails, q), starts) if whole else self._best_tails(q, starts, ends)
        valid = at >= 0
        scores[at[valid]] = self._blend(scores[at[valid]], best[valid])
