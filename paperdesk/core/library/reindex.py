"""Which embedding backend and model made the stored vectors, and re-embedding when that changes.

Vectors from the ONNX int8 model and from torch are close (cosine ~0.99) but
not the same, and another model's vectors are unrelated: a query must be
embedded by whatever made the index. A library from before chunk tails
(search/segments.py) lacks the vectors of its chunks' later text. The
library's `meta` table keeps the embedder's tag
(`backend:model:fingerprint:tails254`) under EMBEDDING_KEY; it is
written in the same transaction as the vectors it describes, so a kill
mid-reindex leaves the old vectors and the old tag, and the next open simply
re-embeds again.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from paperdesk.core.cancel import CancelToken
from paperdesk.core.progress import ProgressCallback, stage_reporter

if TYPE_CHECKING:
    from paperdesk.core.search.embedder import Embedder
    from paperdesk.core.db.store import Store

EMBEDDING_KEY = "embedding_tag"


def stored_tag(store: "Store", embedder: "Embedder") -> str | None:
    """The tag of the stored vectors; a library from before tags existed was made by torch."""
    tag = store.get_meta(EMBEDDING_KEY)
    if tag is None and store.count_chunks() > 0:
        model = embedder.tag.split(":", 1)[1]
        return f"torch:{model}"
    return tag


def needs_reindex(store: "Store", embedder: "Embedder") -> bool:
    """True when stored vectors exist and another backend or model made them."""
    return store.count_chunks() > 0 and stored_tag(store, embedder) != embedder.tag


def mark_if_empty(store: "Store", embedder: "Embedder") -> None:
    """Before the first chunks go in: record who will embed them."""
    if store.count_chunks() == 0 and store.get_meta(EMBEDDING_KEY) != embedder.tag:
        store.set_meta(EMBEDDING_KEY, embedder.tag)


def reembed_all(store: "Store", embedder: "Embedder", progress: ProgressCallback | None = None,
                cancel: CancelToken | None = None) -> int:
    """Embed every stored chunk again with `embedder`; store the vectors and the new tag atomically."""
    rows = store.query("SELECT id, text FROM chunks ORDER BY id")
    if not rows:
        return 0
    vectors = embedder.encode_chunks([r[1] for r in rows], progress=stage_reporter(progress, "reindex", "chunks"),
                                     cancel=cancel)
    if cancel is not None:
        cancel.raise_if_cancelled()
    blobs = [chunk.astype(np.float32).tobytes() for chunk in vectors]  # opening vector, then tails
    with store.transaction() as conn:
        conn.executemany("UPDATE chunks SET embedding = ? WHERE id = ?", [(b, r[0]) for b, r in zip(blobs, rows)])
        # The tag after encoding: if the ONNX export failed, torch made these vectors.
        conn.execute("INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)", (EMBEDDING_KEY, embedder.tag))
    return len(rows)
