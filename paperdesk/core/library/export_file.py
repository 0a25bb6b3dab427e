"""Writing an export where the user asked, without breaking what is already there.

`--out PATH` may name a new file, an existing one (perhaps 0600, perhaps with
other hard links), a symlink, or something that is not a file at all
(/dev/full, /dev/stdout, a fifo, a folder). The rules, as `cp` and a shell's
`>` follow them:

- a symlink is written through: the file it points to gets the text, the link stays;
- an existing file keeps its mode (and owner, where we may set it) and its hard links;
- anything that is not a regular file is refused in one line, untouched;
- `-` is standard output, handled by the callers (`is_stdout`).

Crash safety: a new file, or an existing file with one link, is written to a
temp file beside it, flushed to disk, and renamed over the target, so a kill
at any moment leaves the old text or the new, never half of each. A file with
several hard links cannot be renamed over without cutting it off from its
other names, so its inode is rewritten in place: the space is reserved first
(a full disk fails before a byte changes), then the text is written and the
file cut to length. A crash inside that write (milliseconds for a .bib) can
leave a mix of old and new text; keeping the links is worth that small window.
"""

from __future__ import annotations

import errno
import os
import stat
from pathlib import Path

from paperdesk.core.atomic_file import atomic_write
from paperdesk.core.errors import InvalidArgumentError

STDOUT = "-"

_KINDS = ((stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device"),
          (stat.S_ISFIFO, "a named pipe (fifo)"), (stat.S_ISSOCK, "a socket"))


def is_stdout(path: "Path | str | None") -> bool:
    """`--out -`: the text goes to standard output, as in every Unix tool."""
    return path is not None and str(path) == STDOUT


def _kind(mode: int) -> str:
    return next((name for test, name in _KINDS if test(mode)), "not a regular file")


def _failed(path: Path, exc: OSError) -> InvalidArgumentError:
    return InvalidArgumentError(f"cannot write {path}: {exc.strerror or exc}; nothing was exported")


def write_export(path: Path, text: str) -> Path:
    """Write `text` to `path` (see the module doc); the file written, or InvalidArgumentError saying why not."""
    path = path.expanduser()
    try:
        # stat follows symlinks, /proc's magic links too: /dev/stdout shows up as the tty or pipe it is.
        st: os.stat_result | None = os.stat(path)
    except FileNotFoundError:
        st = None  # a new file, or a symlink to a file not there yet
    except OSError as exc:
        raise _failed(path, exc) from None
    if st is not None and stat.S_ISDIR(st.st_mode):
        raise InvalidArgumentError(f"{path} is a directory; give a file name, e.g. --out {path / 'papers.bib'}")
    if st is not None and not stat.S_ISREG(st.st_mode):
        raise InvalidArgumentError(f"cannot write {path}: it is {_kind(st.st_mode)}, not a file; give a file "
                                   f"name, or --out - for standard output; nothing was exported")
    target = Path(os.path.realpath(path))  # through any symlinks to the file that really changes
    if not target.parent.is_dir():
        raise InvalidArgumentError(f"cannot write {path}: the folder {target.parent} does not exist")
    if st is not None and not os.access(target, os.W_OK):
        raise InvalidArgumentError(f"cannot write {path}: the file is read-only; nothing was exported")
    data = text.encode("utf-8")
    try:
        if st is not None and st.st_nlink > 1:
            _rewrite_in_place(target, data, st)
        else:
            try:
                _replace(target, data, st)
            except PermissionError:
                if st is None:
                    raise
                _rewrite_in_place(target, data, st)  # the folder is read-only, the file is not
    except OSError as exc:
        raise _failed(path, exc) from None
    return target


def _replace(target: Path, data: bytes, st: os.stat_result | None) -> None:
    """Temp file beside the target, flushed, renamed over it: all or nothing."""
    tmp = target.with_name(f".{target.name}.{os.getpid()}.tmp")
    # A new file gets 0666 less the umask, as any new file; an existing one its own mode, set after the umask.
    with atomic_write(target, tmp, mode=0o600 if st else 0o666) as out:
        if st is not None:
            os.fchmod(out.fileno(), stat.S_IMODE(st.st_mode))
            if (st.st_uid, st.st_gid) != (os.getuid(), os.getgid()):
                try:
                    os.fchown(out.fileno(), st.st_uid, st.st_gid)
                except PermissionError:
                    pass  # only root may give a file away; the mode is kept all the same
        out.write(data)


def _rewrite_in_place(target: Path, data: bytes, st: os.stat_result) -> None:
    """New text into the existing inode (same links, mode, owner); see the module doc for the crash window."""
    # O_NONBLOCK: should a fifo have been swapped in since the stat, opening it must not hang.
    fd = os.open(target, os.O_WRONLY | os.O_NONBLOCK)
    try:
        now = os.fstat(fd)
        if not stat.S_ISREG(now.st_mode) or (now.st_dev, now.st_ino) != (st.st_dev, st.st_ino):
            raise OSError(errno.EAGAIN, "the file changed while it was being written; try again")
        if len(data) > now.st_size:
            try:
                os.posix_fallocate(fd, 0, len(data))
            except OSError as exc:
                if exc.errno not in (errno.EOPNOTSUPP, errno.EINVAL, errno.ENOSYS):
                    raise
        os.lseek(fd, 0, os.SEEK_SET)
        _write_all(fd, data)
        os.ftruncate(fd, len(data))
        os.fsync(fd)
    finally:
        os.close(fd)


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view):]
