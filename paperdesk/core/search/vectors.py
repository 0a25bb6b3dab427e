"""Vector search: a normalised float32 matrix of chunk embeddings in memory.

SQLite keeps every chunk's embedding; `vectors.npy` + `vectors.ids.npy` on
disk are a cache of the matrix, stamped with a generation number that the
store also keeps. A stale or broken cache is rebuilt from the store.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Sequence

import numpy as np

from paperdesk.core.search.embedder import DIM


def _dot(matrix: np.ndarray, query: np.ndarray) -> np.ndarray:
    """matrix @ query, single-threaded: BLAS's threaded matrix-vector product waits on busy cores
    (100k x 384 on the shared 2-core machine: `@` p50 48-60 ms, einsum 23-33 ms)."""
    return np.einsum("ij,j->i", matrix, query)


def _atomic_save(path: Path, array: np.ndarray) -> None:
    tmp = path.with_name(path.name + ".tmp")
    with open(tmp, "wb") as fh:
        np.save(fh, array)
        fh.flush()
        os.fsync(fh.fileno())
    os.replace(tmp, path)


class VectorIndex:
    """Exact inner-product search over unit vectors (cosine similarity)."""

    def __init__(self, directory: Path) -> None:
        self.directory = directory
        directory.mkdir(parents=True, exist_ok=True)
        self.matrix = np.zeros((0, DIM), dtype=np.float32)
        self.ids = np.zeros(0, dtype=np.int64)
        self.generation = -1
        self._order: np.ndarray | None = None  # argsort of ids, for scores_of

    # -- persistence ------------------------------------------------------------

    @property
    def _files(self) -> tuple[Path, Path, Path]:
        d = self.directory
        return d / "vectors.npy", d / "vectors.ids.npy", d / "vectors.json"

    def load_cache(self, generation: int) -> bool:
        """Load the on-disk matrix if it carries this generation; False if stale or broken."""
        mat_path, ids_path, info_path = self._files
        try:
            info = json.loads(info_path.read_text())
            if info.get("generation") != generation:
                return False
            matrix = np.load(mat_path)
            ids = np.load(ids_path)
        except (OSError, ValueError, json.JSONDecodeError):
            return False
        if matrix.ndim != 2 or matrix.shape[1] != DIM or len(ids) != len(matrix):
            return False
        self.matrix = np.ascontiguousarray(matrix, dtype=np.float32)
        self.ids = ids.astype(np.int64)
        self._order = None
        self.generation = generation
        return True

    def save_cache(self, generation: int) -> None:
        mat_path, ids_path, info_path = self._files
        # The stamp goes last: a crash before it leaves a cache that reads as stale.
        info_path.unlink(missing_ok=True)
        _atomic_save(mat_path, self.matrix)
        _atomic_save(ids_path, self.ids)
        tmp = info_path.with_name(info_path.name + ".tmp")
        tmp.write_text(json.dumps({"generation": generation, "count": len(self.ids), "dim": DIM}))
        os.replace(tmp, info_path)
        self.generation = generation

    def set_all(self, ids: Sequence[int], matrix: np.ndarray) -> None:
        self._order = None
        self.ids = np.asarray(ids, dtype=np.int64)
        self.matrix = np.ascontiguousarray(matrix, dtype=np.float32).reshape(len(self.ids), DIM)

    # -- edits ------------------------------------------------------------------

    def replace(self, add_ids: Sequence[int], add_vectors: np.ndarray, remove_ids: Sequence[int] = ()) -> None:
        """Drop `remove_ids` and any of `add_ids` already present, then append."""
        self._order = None
        drop = np.concatenate([np.asarray(remove_ids, dtype=np.int64), np.asarray(add_ids, dtype=np.int64)])
        if len(drop) and len(self.ids):
            keep = ~np.isin(self.ids, drop)
            self.ids, self.matrix = self.ids[keep], self.matrix[keep]
        if len(add_ids):
            self.ids = np.concatenate([self.ids, np.asarray(add_ids, dtype=np.int64)])
            self.matrix = np.ascontiguousarray(np.vstack([self.matrix, add_vectors.astype(np.float32)]))

    def scores_of(self, query: np.ndarray, ids: Sequence[int]) -> np.ndarray:
        """Cosine of `query` with each of `ids` (NaN for ids not in the index)."""
        out = np.full(len(ids), np.nan, dtype=np.float32)
        if not len(ids) or not len(self.ids):
            return out
        wanted = np.asarray(ids, dtype=np.int64)
        if self._order is None or len(self._order) != len(self.ids):
            self._order = np.argsort(self.ids, kind="stable")  # once per change, not per query
        order = self._order
        at = np.searchsorted(self.ids, wanted, sorter=order)
        at = np.minimum(at, len(order) - 1)
        rows = order[at]
        found = self.ids[rows] == wanted
        out[found] = self.matrix[rows[found]] @ np.asarray(query, dtype=np.float32)
        return out

    def __len__(self) -> int:
        return len(self.ids)

    # -- search -----------------------------------------------------------------

    def search(self, query: np.ndarray, k: int, allowed: np.ndarray | None = None) -> list[tuple[int, float]]:
        """Top-k (chunk id, cosine), best first; `allowed` restricts to those chunk ids."""
        if k <= 0 or len(self.ids) == 0:
            return []
        q = np.asarray(query, dtype=np.float32)
        if allowed is not None:
            rows = np.flatnonzero(np.isin(self.ids, allowed))
            if len(rows) == 0:
                return []
            scores = _dot(self.matrix[rows], q)
            ids = self.ids[rows]
        else:
            scores = _dot(self.matrix, q)
            ids = self.ids
        k = min(k, len(scores))
        top = np.argpartition(-scores, k - 1)[:k]
        top = top[np.argsort(-scores[top], kind="stable")]
        return [(int(ids[i]), float(scores[i])) for i in top]
