"""A flag llama.cpp's abort callback reads without Python: a cancel inside a prompt batch from a worker thread.

llama.cpp asks its abort callback between the steps of a batch's compute graph. A Python callback takes
the interpreter lock at each step, and a worker thread beside a busy UI thread waits for that lock every
time. Here the callback is C's own `strlen`, pointed at a two-byte buffer: it returns 0 (do not abort)
while the first byte is NUL and 1 once a watcher thread has written a byte there on cancel. Read as
`bool` at the C calling convention, that is the callback's answer, and no Python runs inside the batch.
"""

from __future__ import annotations

import ctypes
import sys
import threading
from contextlib import contextmanager
from typing import Any, Iterator

from paperdesk.core.cancel import CancelToken

POLL_S = 0.05  # how often the watcher looks at the cancel token while a batch is evaluated


def _strlen() -> Any:
    """C's strlen, or None where no C library can be opened."""
    try:
        library = ctypes.cdll.msvcrt if sys.platform == "win32" else ctypes.CDLL(None)
        return library.strlen
    except (OSError, AttributeError):
        return None


class AbortFlag:
    """One flag per loaded model; `watching(token)` raises it when the token is cancelled.

    `callback` and `data` are what `llama_set_abort_callback` takes; `callback` is None when no C
    library could be opened, and then the caller checks for cancels between batches only.
    """

    def __init__(self) -> None:
        import llama_cpp

        self._buffer = ctypes.create_string_buffer(2)  # zeroed: an empty C string
        reader = _strlen()
        self.callback = None if reader is None else ctypes.cast(reader, llama_cpp.ggml_abort_callback)
        self.data = ctypes.c_void_p(ctypes.addressof(self._buffer))

    @property
    def raised(self) -> bool:
        return self._buffer.raw[:1] != b"\0"

    def raise_(self) -> None:
        self._buffer[0] = b"x"

    def lower(self) -> None:
        self._buffer[0] = b"\0"

    @contextmanager
    def watching(self, token: CancelToken) -> Iterator[None]:
        """Lowered, then raised by a watcher thread as soon as `token` is cancelled, until the block ends."""
        self.lower()
        done = threading.Event()

        def watch() -> None:
            while True:
                if token.cancelled:
                    self.raise_()
                    return
                if done.wait(POLL_S):
                    return

        watcher = threading.Thread(target=watch, name="paperdesk-llama-abort", daemon=True)
        watcher.start()
        try:
            yield
        finally:
            done.set()
            watcher.join()
