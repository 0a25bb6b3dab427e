"""All-or-nothing file writes: a temp file beside the target, flushed to disk, renamed over it.

A reader (or a crash) sees the old file or the whole new one, never part of it. The temp file lives in the
target's folder, so the rename is atomic; on any failure (a full disk, a cancel, a bad checksum raised
inside the block) it is removed and the target is left as it was.
"""

from __future__ import annotations

import os
import secrets
from contextlib import contextmanager
from pathlib import Path
from typing import BinaryIO, Iterator


@contextmanager
def atomic_write(target: Path, temp: Path | None = None, mode: int = 0o666,
                 exclusive: bool = True) -> Iterator[BinaryIO]:
    """Write `target` through the binary file this yields.

    `temp` names the temp file (default: a hidden, unique name beside the target); it must be in the
    target's folder. `mode` is the new file's mode before the umask. `exclusive` refuses a temp file that
    already exists (a unique name never does; a fixed name that a crash may have left passes False)."""
    temp = temp or target.with_name(f".{target.name}.{os.getpid()}.{secrets.token_hex(4)}.tmp")
    flags = os.O_WRONLY | os.O_CREAT | (os.O_EXCL if exclusive else os.O_TRUNC) | getattr(os, "O_BINARY", 0)
    fd = os.open(temp, flags, mode)
    try:
        with os.fdopen(fd, "wb") as out:
            yield out
            out.flush()
            os.fsync(out.fileno())  # the bytes are on disk before the name points at them
        os.replace(temp, target)
    except BaseException:
        temp.unlink(missing_ok=True)
        raise
    sync_folder(target.parent)


def write_bytes(target: Path, data: bytes, temp: Path | None = None, mode: int = 0o666,
                exclusive: bool = True) -> None:
    """`data` as the whole of `target`, all or nothing (see atomic_write)."""
    with atomic_write(target, temp, mode, exclusive) as out:
        out.write(data)


def sync_folder(folder: Path) -> None:
    """The rename itself reaches the disk (best effort: some platforms cannot open or sync a folder)."""
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)
