"""The reader: a sentence embedder larger than search's that scores a passage's sentences for a question.

Search embeds every chunk of the library, so its model must be small and fast
(all-MiniLM-L6-v2). An answer reads only the few passages search proposed,
sentence by sentence, to pick the ones that state the fact; there a larger
model (all-mpnet-base-v2, `paperdesk models install all-mpnet-base-v2`) tells
the stating sentence from its neighbours more often. It is used for that
scoring only; the library's vectors never change with it. Without it (not
installed, or `answer.reader = ""`) search's embedder does the scoring.
"""

from __future__ import annotations

import threading
from pathlib import Path
from typing import TYPE_CHECKING, Sequence

import numpy as np

if TYPE_CHECKING:
    from paperdesk.core.config import Settings
    from paperdesk.core.search.embedder import Embedder


class SentenceReader:
    """Unit vectors from a sentence-transformers folder, through the same int8 ONNX export as search's model."""

    def __init__(self, model_dir: Path) -> None:
        self.model_dir = model_dir
        self._model = None
        self._lock = threading.Lock()

    def model(self):
        if self._model is None:
            with self._lock:
                if self._model is None:
                    from paperdesk.core.search.embedder import _load_onnx

                    self._model = _load_onnx(self.model_dir, None)
        return self._model

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        texts = list(texts)
        if not texts:
            return np.zeros((0, 1), dtype=np.float32)
        return self.model().encode(texts)

    def encode_query(self, query: str) -> np.ndarray:
        return self.encode([query])[0]


_READERS: dict[Path, SentenceReader | None] = {}  # None: it could not load; not tried again in this process
_LOCK = threading.Lock()


def reader_dir(settings: "Settings") -> Path | None:
    """The reader's model folder per `answer.reader`: a catalogue name (when installed) or a folder; else None."""
    from paperdesk.core.llm import catalogue

    name = settings["answer.reader"].strip()
    if not name:
        return None
    model = catalogue.BY_NAME.get(name)
    if model is not None:
        return catalogue.installed_path(model, settings) if model.is_folder else None
    folder = Path(name).expanduser()
    return folder if (folder / "config.json").is_file() else None


def sentence_encoder(settings: "Settings", fallback: "Embedder") -> "SentenceReader | Embedder":
    """What scores sentences for an answer: the reader when there is one, else search's embedder."""
    folder = reader_dir(settings)
    if folder is None:
        return fallback
    with _LOCK:
        if folder not in _READERS:
            _READERS[folder] = SentenceReader(folder)
        reader = _READERS[folder]
    if reader is None:
        return fallback
    try:
        reader.model()
    except Exception:  # noqa: BLE001 - a reader that cannot load (a damaged folder) must not stop an answer
        _READERS[folder] = None
        return fallback
    return reader
