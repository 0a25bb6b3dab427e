"""One writer at a time: an flock on `<home>/write.lock` held across the store and both indexes.

SQLite serialises its own transactions, but an add or remove also rewrites
the tantivy index and the vector cache. Without a lock spanning all three,
two processes each save their own copy of the vector cache and the last save
drops the other's paper. The lock is per open file, so two Library objects in
one process exclude each other too; the kernel drops it when a process dies,
so a kill -9 never leaves the library locked.
"""

from __future__ import annotations

import fcntl
import logging
import os
import threading
import time
from contextlib import contextmanager
from pathlib import Path
from typing import Callable, Iterator

from paperdesk.core.cancel import CancelToken
from paperdesk.core.errors import LibraryBusyError, StoreError

_log = logging.getLogger("paperdesk.lock")
POLL_SECONDS = 0.05


class WriterLock:
    """A reentrant, cross-process exclusive lock; `hold()` waits (with a message) up to `wait` seconds."""

    def __init__(self, path: Path, wait: float = 120.0, on_wait: Callable[[str], None] | None = None) -> None:
        self.path = path
        self.wait = wait
        self.on_wait = on_wait
        self._fd: int | None = None
        self._depth = 0
        self._mutex = threading.RLock()

    def _open(self) -> int:
        if self._fd is None:
            try:
                self._fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o600)
            except (IsADirectoryError, NotADirectoryError, PermissionError) as exc:
                what = "a folder" if self.path.is_dir() else f"not usable ({exc.strerror})"
                raise StoreError(f"the library's lock file {self.path} is {what}; move it aside "
                                 "(paperdesk makes a new one) and try again") from None
        return self._fd

    def _try(self, fd: int) -> bool:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            return False
        # Who holds it, for the next waiter's message; a failed write (disk full) only loses the pid.
        try:
            os.ftruncate(fd, 0)
            os.pwrite(fd, str(os.getpid()).encode(), 0)
        except OSError:
            pass
        return True

    def holder(self) -> str:
        """The pid written by the current holder, or '?'."""
        try:
            return self.path.read_text().strip() or "?"
        except OSError:
            return "?"

    @contextmanager
    def hold(self, cancel: CancelToken | None = None, wait: float | None = None) -> Iterator[bool]:
        """Hold the lock for the block; yields True. With wait=0 it yields False instead of waiting."""
        limit = self.wait if wait is None else wait
        with self._mutex:
            if self._depth == 0 and not self._acquire(limit, cancel):
                yield False
                return
            self._depth += 1
            try:
                yield True
            finally:
                self._depth -= 1
                if self._depth == 0 and self._fd is not None:
                    fcntl.flock(self._fd, fcntl.LOCK_UN)

    def _acquire(self, limit: float, cancel: CancelToken | None) -> bool:
        fd = self._open()
        if self._try(fd):
            return True
        if limit <= 0:
            return False
        message = (f"another paperdesk process (pid {self.holder()}) is writing the library; "
                   f"waiting up to {limit:g} s for it to finish ...")
        _log.info(message)
        if self.on_wait is not None:
            self.on_wait(message)
        deadline = time.monotonic() + limit
        while time.monotonic() < deadline:
            if cancel is not None:
                cancel.raise_if_cancelled()
            time.sleep(POLL_SECONDS)
            if self._try(fd):
                return True
        raise LibraryBusyError(
            f"another paperdesk process (pid {self.holder()}) kept the library busy for over {limit:g} s; "
            "nothing was changed: let it finish (or close it) and try again"
        )

    def close(self) -> None:
        with self._mutex:
            if self._fd is not None:
                os.close(self._fd)  # closing the file drops the flock
                self._fd = None
                self._depth = 0
