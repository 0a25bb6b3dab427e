"""Nearest-exemplar intent scores with the MiniLM embedder the desk already has loaded.

The labelled exemplars (exemplars.jsonl, next to this file) are the
dispatcher's only "training" data; the dev set in tests/fixtures is kept
separate so accuracy is measured on messages the matcher has never seen.
"""

from __future__ import annotations

import json
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

import numpy as np

EXEMPLARS_FILE = Path(__file__).with_name("exemplars.jsonl")


class Encoder(Protocol):
    def encode(self, texts: list[str]) -> np.ndarray: ...


@dataclass(frozen=True)
class IntentScores:
    """Per-intent similarity, best first, and the nearest exemplar (for the reason line)."""

    ranked: list[tuple[str, float]]
    nearest: str

    @property
    def top(self) -> tuple[str, float]:
        return self.ranked[0]

    @property
    def margin(self) -> float:
        return self.ranked[0][1] - self.ranked[1][1] if len(self.ranked) > 1 else self.ranked[0][1]

    def score(self, intent: str) -> float:
        return dict(self.ranked).get(intent, 0.0)


def load_exemplars(path: Path = EXEMPLARS_FILE) -> list[tuple[str, str]]:
    """(text, intent) pairs from a JSONL file of {"intent", "text"} objects."""
    out: list[tuple[str, str]] = []
    for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        if not line.strip():
            continue
        try:
            item: Any = json.loads(line)
            out.append((str(item["text"]), str(item["intent"])))
        except (json.JSONDecodeError, KeyError, TypeError) as exc:
            raise ValueError(f"{path}:{n}: not an exemplar line ({exc})") from None
    return out


class ExemplarIndex:
    """Encodes the exemplars once (lazily); `scores(text)` is one encode and one matrix product."""

    def __init__(self, encoder: Encoder, exemplars: list[tuple[str, str]] | None = None) -> None:
        self.encoder = encoder
        self.exemplars = exemplars if exemplars is not None else load_exemplars()
        self.intents = sorted({intent for _, intent in self.exemplars})
        self._matrix: np.ndarray | None = None
        self._labels: np.ndarray | None = None
        self._lock = threading.Lock()

    def _ready(self) -> tuple[np.ndarray, np.ndarray]:
        with self._lock:
            if self._matrix is None:
                self._matrix = np.asarray(self.encoder.encode([t for t, _ in self.exemplars]), dtype=np.float32)
                self._labels = np.array([self.intents.index(i) for _, i in self.exemplars])
        assert self._labels is not None
        return self._matrix, self._labels

    def warm(self) -> None:
        """Encode the exemplars now (e.g. in a startup worker) rather than on the first message."""
        self._ready()

    def scores(self, text: str, vector: np.ndarray | None = None) -> IntentScores:
        """Each intent's score: the mean of its two nearest exemplars' cosine similarities."""
        matrix, labels = self._ready()
        vec = vector if vector is not None else self.encoder.encode([text])[0]
        sims = matrix @ vec
        ranked = []
        for k, intent in enumerate(self.intents):
            own = np.sort(sims[labels == k])[::-1][:2]
            ranked.append((intent, float(own.mean())))
        ranked.sort(key=lambda s: -s[1])
        return IntentScores(ranked, self.exemplars[int(np.argmax(sims))][0])
