"""A library is private to its owner, as ssh and gpg keep their folders: the home 0700, files 0600.

The catalogue holds notes, summaries, discussions and the command history;
nobody else on the machine should read it. A new library is made private; an
existing one loses its group and other bits when it opens (only what this
user owns, never through a link).
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

FOLDERS = ("papers", "index", "lost+found")
FILES = ("library.sqlite", "library.sqlite-wal", "library.sqlite-shm", "paperdesk.log", "write.lock")


def tighten(path: Path) -> None:
    """Drop group and other permissions from `path` if this user owns it; links and absent paths are left."""
    try:
        st = os.lstat(path)
        mode = stat.S_IMODE(st.st_mode)
        if stat.S_ISLNK(st.st_mode) or st.st_uid != os.getuid() or not mode & 0o077:
            return
        os.chmod(path, mode & ~0o077)
    except OSError:  # not ours to change (a read-only mount): it still works, only less private
        return


def make_private_home(home: Path) -> None:
    """Create `home` (0700) if needed, and tighten the library's folder and files that exist."""
    home.mkdir(mode=0o700, parents=True, exist_ok=True)
    tighten_library(home)


def tighten_library(home: Path) -> None:
    tighten(home)
    for name in (*FOLDERS, *FILES):
        tighten(home / name)
