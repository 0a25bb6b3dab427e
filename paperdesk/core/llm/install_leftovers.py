"""What an install killed outright (kill -9, a power cut) leaves in the models dir: its download folder of
wheels and its half-assembled model file, hundreds of MB together. The next install removes them, and
doctor and `paperdesk models` report them. Each is named with its install's process id, so the leftovers
of an install still running (another terminal) are never touched."""

from __future__ import annotations

import os
import re
import shutil
import time
from pathlib import Path

DOWNLOAD_PREFIX = ".download-"
STALE_S = 3600  # a leftover without a process id (older paperdesk) is stale after an hour untouched
_PID = re.compile(r"^\.download-(\d+)-|\.(\d+)\.tmp$")


def download_prefix() -> str:
    """The prefix of this process's download folder."""
    return f"{DOWNLOAD_PREFIX}{os.getpid()}-"


def _alive(pid: int) -> bool:
    if pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # someone else's process: alive
        return True
    return True


def _size(path: Path) -> int:
    if path.is_dir() and not path.is_symlink():
        return sum(p.stat().st_size for p in path.rglob("*") if p.is_file() and not p.is_symlink())
    return path.lstat().st_size


def leftovers(directory: Path) -> list[tuple[Path, int]]:
    """(path, bytes) of each download folder and temp model file whose install is no longer running."""
    if not directory.is_dir():
        return []
    found = []
    for path in sorted(directory.iterdir()):
        if not (path.name.startswith(DOWNLOAD_PREFIX) or path.name.endswith(".tmp")):
            continue
        match = _PID.search(path.name)
        pid = next((int(g) for g in match.groups() if g), 0) if match else 0
        try:
            stale = not _alive(pid) if pid else time.time() - path.lstat().st_mtime > STALE_S
            if stale:
                found.append((path, _size(path)))
        except OSError:  # gone meanwhile
            continue
    return found


def remove_leftovers(directory: Path) -> int:
    """Remove what `leftovers` finds; return the bytes freed."""
    freed = 0
    for path, size in leftovers(directory):
        try:
            if path.is_dir() and not path.is_symlink():
                shutil.rmtree(path)
            else:
                path.unlink()
            freed += size
        except OSError:
            continue
    return freed


def describe(found: list[tuple[Path, int]]) -> str:
    total = sum(size for _, size in found)
    names = ", ".join(path.name for path, _ in found[:3]) + (" ..." if len(found) > 3 else "")
    return f"{total / (1 << 20):.0f} MB left by an interrupted model install ({names})"
