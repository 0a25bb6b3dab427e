"""Deterministic stand-in encoders for logic tests that must not depend on an embedding model."""

from __future__ import annotations

import re

import numpy as np


class BagOfWords:
    """Unit-length word-count vectors of `dim` entries; each word (3+ letters) gets the next free index,
    modulo `dim`, the first time it is seen. Called like an embedder: `encode(texts) -> matrix`."""

    def __init__(self, dim: int) -> None:
        self.dim = dim
        self.vocab: dict[str, int] = {}

    def __call__(self, texts):
        rows = []
        for text in texts:
            vec = np.zeros(self.dim, dtype=np.float32)
            for word in re.findall(r"[a-z]{3,}", text.lower()):
                vec[self.vocab.setdefault(word, len(self.vocab) % self.dim)] += 1
            rows.append(vec / (np.linalg.norm(vec) or 1))
        return np.stack(rows)
