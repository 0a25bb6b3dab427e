"""Recognising a full disk in the many shapes it arrives in, and saying so in one line."""

from __future__ import annotations

import errno
import math
import sqlite3
from pathlib import Path

from paperdesk.core.errors import StoreError

_FULL_ERRNOS = {errno.ENOSPC, errno.EDQUOT, errno.EFBIG}
_FULL_TEXT = ("no space left", "disk is full", "os error 28", "quota exceeded", "file too large")


class DiskFullError(StoreError):
    """A write failed because the disk (or quota) is full; what was being written was undone."""


def is_disk_full(exc: BaseException) -> bool:
    """True for ENOSPC/EDQUOT/EFBIG from Python, SQLite ('database or disk is full') or tantivy (os error 28)."""
    seen: set[int] = set()
    while exc is not None and id(exc) not in seen:
        seen.add(id(exc))
        if isinstance(exc, OSError) and exc.errno in _FULL_ERRNOS:
            return True
        if isinstance(exc, (OSError, sqlite3.Error, ValueError, RuntimeError)):
            if any(t in str(exc).lower() for t in _FULL_TEXT):
                return True
        exc = exc.__cause__ or exc.__context__  # type: ignore[assignment]
    return False


def disk_full(needed_bytes: int, directory: Path, what: str) -> DiskFullError:
    """The one-line message: how much was needed where, and that nothing was kept."""
    mb = max(1, math.ceil(needed_bytes / 1_000_000))
    return DiskFullError(
        f"the disk is full: about {mb} MB needed in {directory} to {what}; nothing was kept: "
        "free some space and try again"
    )
