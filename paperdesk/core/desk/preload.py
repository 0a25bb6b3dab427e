"""Load the embedding model and the local LLM in the background, while the library opens.

Opening the library is mostly Python imports (they hold the GIL); loading a
GGUF is mostly llama.cpp reading and repacking weights (ctypes releases the
GIL), and the ONNX session is built in C++. Run one after the other, "models
ready" is the sum of all three; started together at launch it is close to the
longest one (`paperdesk bench startup`). The parts made here are the ones the
Desk then uses (`Desk(settings, backend=..., embedder=...)`), so nothing is
loaded twice.
"""

from __future__ import annotations

import threading
from typing import Any, Callable

from paperdesk.core.config import Settings
from paperdesk.core.errors import PaperdeskError
from paperdesk.core.search.embedder import Embedder


class ModelPreload:
    """The embedder and backend of the coming Desk, each loading in its own daemon thread."""

    def __init__(self, settings: Settings) -> None:
        self.embedder = Embedder.from_settings(settings)
        self.backend: Any = None
        try:
            from paperdesk.core.llm.factory import make_backend

            self.backend = make_backend(settings)
        except PaperdeskError:
            pass  # the Desk makes it again on first use and reports the same error where the user sees it
        self._threads = [self._start(self._load_embedder, "paperdesk-preload-embedder")]
        if self.backend is not None:
            self._threads.append(self._start(self.backend.warm_up, "paperdesk-preload-llm"))
        # The answers' sentence reader, once the rest is loaded (only an answer needs it), and only when its
        # export is ready: exporting is Python-heavy work that would hold the GIL from the UI for half a minute.
        if settings["answer.reader"].strip():
            threading.Thread(target=self._load_reader, args=(settings, list(self._threads)),
                             name="paperdesk-preload-reader", daemon=True).start()

    def _load_embedder(self) -> None:
        """Search's model, then the dispatcher's: the unquantized copy and the exemplars' vectors, so the first
        typed message is decided without waiting for them (on a cache from before the copy existed, it is
        exported here once, like search's model on a first start)."""
        self.embedder.model()
        from paperdesk.core.dispatch.exemplars import load_exemplars

        self.embedder.phrases().encode([text for text, _ in load_exemplars()])

    def _load_reader(self, settings: Settings, first: list[threading.Thread]) -> None:
        from paperdesk.core.search import onnx_export
        from paperdesk.core.search.reader import reader_dir, sentence_encoder

        for thread in first:
            thread.join()
        try:
            folder = reader_dir(settings)
            if folder is not None and onnx_export.is_exported(folder):
                sentence_encoder(settings, self.embedder)
        except Exception:  # noqa: BLE001 - the first answer tries again, or reads with search's embedder
            pass

    @staticmethod
    def _start(load: Callable[[], Any], name: str) -> threading.Thread:
        def run() -> None:
            try:
                load()
            except Exception:  # noqa: BLE001 - warm-up calls load() again and reports the error to the user
                pass

        thread = threading.Thread(target=run, name=name, daemon=True)
        thread.start()
        return thread

    def wait(self, timeout: float | None = None) -> None:
        """Block until both loads have finished (or failed)."""
        for thread in self._threads:
            thread.join(timeout)
