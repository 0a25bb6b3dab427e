"""`paperdesk.log`: details of unexpected errors, written so that the writing itself never fails a command.

On a full disk (or a read-only library) the log cannot be written; the error
the user sees says so once, instead of a second traceback hiding the first.
"""

from __future__ import annotations

import threading
import time
from pathlib import Path


class CrashLog:
    """Appends tracebacks to one file; an OSError while writing is swallowed and reported once."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._failed: str | None = None  # why the last write failed, once reported
        self._lock = threading.Lock()

    def write(self, title: str, text: str) -> str:
        """Append an entry; returns where the details are, for the message the user sees."""
        with self._lock:
            try:
                with self.path.open("a", encoding="utf-8", errors="backslashreplace") as fh:  # even surrogates
                    fh.write(f"--- {time.strftime('%Y-%m-%d %H:%M:%S')} {title}\n{text}\n")
            except OSError as exc:
                first = self._failed is None
                self._failed = exc.strerror or str(exc)
                if first:
                    return f"the details could not be written to {self.path}: {self._failed}"
                return "no details logged"
            self._failed = None
            return f"details in {self.path}"

