"""Short lines embedded the same way on every CPU: a typed message and the dispatcher's exemplars.

The dispatcher compares a message with its labelled exemplars against fixed
thresholds (a floor under which nothing runs, a level under which it asks).
Search's int8 model gives a text a slightly different vector on a CPU with
AVX-512 VNNI than on one without: on the exemplars, similarities came out up
to 0.05 apart, enough to move a message across a threshold, so the same words
ran a command on one machine and got a question on another. Phrases are
embedded with the unquantized export of the same model instead: its vectors
equal sentence-transformers' on any CPU (cosine 1.0000), and on lines of a few
words it is nearly as quick as int8 (the 119 exemplars in 0.57 s against
0.48 s on a 2-core EPYC). Each distinct line is encoded once per process
(every dispatcher shares the exemplars' vectors). With the torch backend the
embedder's own vectors are already exact; when the fp32 export cannot be made,
the embedder's vectors are used and `notice` says why.
"""

from __future__ import annotations

import sys
import threading
from pathlib import Path
from typing import TYPE_CHECKING, Sequence

import numpy as np

if TYPE_CHECKING:
    from paperdesk.core.search.embedder import Embedder

KEEP = 4096  # distinct lines remembered (exemplars and recent messages); the oldest go first

_MODELS: dict[tuple[Path, Path | None], object] = {}
_MODELS_LOCK = threading.Lock()


def _fp32_model(model_dir: Path, cache: Path | None):
    from paperdesk.core.search import onnx_export
    from paperdesk.core.search.onnx_runtime import OnnxSentenceModel

    key = (model_dir.resolve(), cache)
    with _MODELS_LOCK:
        if key not in _MODELS:
            _MODELS[key] = OnnxSentenceModel(onnx_export.export_fp32(model_dir, cache))
        return _MODELS[key]


class PhraseEncoder:
    """`encode(texts)` -> (len(texts), DIM) float32 unit vectors, the same on every CPU."""

    def __init__(self, embedder: "Embedder", cache_dir: Path | None = None) -> None:
        self.embedder = embedder
        self._cache_dir = cache_dir
        self._model = None
        self._exact = True  # False once the fp32 model could not be had: the embedder's vectors are used
        self._lock = threading.Lock()
        self._seen: dict[str, np.ndarray] = {}
        self.notice: str | None = None

    @property
    def backend(self) -> str:
        """What makes the vectors: "onnx-fp32", or the embedder's backend when that is used instead."""
        self._ready()
        return "onnx-fp32" if self._model is not None else (self.embedder.backend or self.embedder.expected_backend())

    def _ready(self) -> None:
        if self._model is not None or not self._exact:
            return
        with self._lock:
            if self._model is not None or not self._exact:
                return
            if self.embedder.expected_backend() == "torch":
                self._exact = False  # sentence-transformers' vectors: exact already
                return
            from paperdesk.core.search import onnx_export

            model_dir = self.embedder.model_dir()
            failed = onnx_export.failed_before(model_dir, self._cache_dir, "fp32")
            try:
                if failed is not None:
                    raise RuntimeError(failed)
                self._model = _fp32_model(model_dir, self._cache_dir)
            except Exception as exc:  # noqa: BLE001 - the int8 vectors still route; only machine-exactness is lost
                reason = onnx_export.failure_reason(exc)
                if failed is None:
                    onnx_export.record_failure(model_dir, reason, self._cache_dir, "fp32")
                    print(f"paperdesk: unquantized embedding model unavailable ({reason}); messages are read "
                          "with search's int8 model", file=sys.stderr)
                self.notice = f"unquantized embedding model unavailable ({reason})"
                self._exact = False

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        texts = list(texts)
        self._ready()
        if self._model is None:
            return self.embedder.encode(texts)
        with self._lock:  # a message decided beside a running command: one encode at a time, the memo whole
            missing = [t for t in dict.fromkeys(texts) if t not in self._seen]
            made = dict(zip(missing, self._model.encode(missing))) if missing else {}
            for text, vector in made.items():
                if len(self._seen) >= KEEP:
                    self._seen.pop(next(iter(self._seen)))
                self._seen[text] = vector
            return np.stack([made[t] if t in made else self._seen[t] for t in texts]) if texts else \
                np.zeros((0, self._model.dim), dtype=np.float32)
