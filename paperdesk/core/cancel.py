"""Cooperative cancellation shared by every long operation."""

from __future__ import annotations

import threading

from paperdesk.core.errors import CancelledError


class CancelToken:
    """A flag that long work checks between steps; `cancel()` is thread-safe."""

    def __init__(self) -> None:
        self._event = threading.Event()

    def cancel(self) -> None:
        self._event.set()

    @property
    def cancelled(self) -> bool:
        return self._event.is_set()

    def raise_if_cancelled(self) -> None:
        if self._event.is_set():
            raise CancelledError("cancelled")

