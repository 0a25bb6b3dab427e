"""Load the writer while a command's own work before its first generation goes on.

`paperdesk ask` searches, re-ranks and reads the passages (ONNX Runtime, SQLite, tantivy) before it writes a
word; loading a GGUF is llama.cpp reading and repacking weights with the GIL released. Started together, the
answer's first token waits for the longer of the two, not their sum.
"""

from __future__ import annotations

import threading
from contextlib import contextmanager
from typing import Iterator

from paperdesk.core.llm.backend import Backend


@contextmanager
def loading(backend: Backend) -> Iterator[None]:
    """Run the body while `backend` loads its model on a daemon thread; on leaving, wait for the load to end.

    A load that fails is left to the body's first generation, which loads again and raises the error where
    the caller reports it (the backend's own lock keeps the two loads from overlapping)."""

    def load() -> None:
        try:
            backend.warm_up()
        except Exception:  # noqa: BLE001 - reported by the first generation, which tries the load again
            pass

    thread = threading.Thread(target=load, name="paperdesk-load-writer", daemon=True)
    thread.start()
    try:
        yield
    finally:
        thread.join()  # never leave llama.cpp loading while the interpreter shuts down
