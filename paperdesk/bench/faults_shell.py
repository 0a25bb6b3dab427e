"""Fault trials: a full disk under the shell (`paperdesk bench faults --only shell`).

Each trial runs a shell script (or the Notes pane's writer) on a library whose
disk is full, sometimes freeing space halfway. Clean means: no traceback, the
script ran to its end, `status` answered, the user was told the disk is full,
and every note typed was saved once space was free (or printed at quit while
it was not); "lost" counts notes that were neither. The disk is a real 16 MB
tmpfs when run as root; elsewhere every SQLite write fails as a full disk does.
"""

from __future__ import annotations

import contextlib
import io
import sqlite3
import subprocess
from pathlib import Path
from typing import Callable, Iterator

from paperdesk.bench.faults_kill import Tally, check_home
from paperdesk.bench.faults_misc import _fill, can_mount_tmpfs
from paperdesk.core.config import Settings, load_settings

LEAVE_BYTES = 64 * 1024  # enough for SQLite to open the library; too little for any write
PANE_TEXT = "typed in the pane\n" * 20_000  # more than the room left, even in a WAL file already grown


class ScriptInput(io.StringIO):
    """A shell script on stdin that calls hooks when comment lines such as `# free` are read."""

    def __init__(self, text: str, hooks: dict[str, Callable[[], None]] | None = None) -> None:
        super().__init__(text)
        self.hooks = hooks or {}

    def readline(self, *args) -> str:  # type: ignore[override]
        line = super().readline(*args)
        hook = self.hooks.get(line.strip())
        if hook is not None:
            hook()
        return line


class FullDisk:
    """A library holding one paper on a disk that `fill()` fills and `free()` frees."""

    def __init__(self, settings: Settings, embedder, disk: Path | None) -> None:
        self.settings, self.embedder, self.disk = settings, embedder, disk
        self.paper_id = ""
        self._filler: Path | None = None
        self._injected = False

    @classmethod
    @contextlib.contextmanager
    def make(cls, root: Path, embedder, pdf: Path) -> Iterator["FullDisk"]:
        from paperdesk.core.library.library import Library
        from paperdesk.core.db.owned_db import OwnedDb

        disk = _mount(root / "disk") if can_mount_tmpfs() else None
        home = (disk or root) / "home"
        home.mkdir(parents=True, exist_ok=True)
        settings = load_settings(environ={"PAPERDESK_HOME": str(home)}, path=root / "no-config.toml")
        self = cls(settings.with_overrides(offline=True), embedder, disk)
        library = Library(self.settings, embedder=embedder)
        self.paper_id = library.add_pdf(pdf).paper.id
        library.close()
        original = OwnedDb.transaction
        if disk is None:
            @contextlib.contextmanager
            def transaction(db):  # every write fails as SQLite's does on a full disk
                if self._injected:
                    raise sqlite3.OperationalError("database or disk is full")
                with original(db) as conn:
                    yield conn

            OwnedDb.transaction = transaction  # type: ignore[method-assign]
        try:
            yield self
        finally:
            OwnedDb.transaction = original  # type: ignore[method-assign]
            self.free()
            if disk is not None:
                subprocess.run(["umount", "-l", str(disk)], check=False)

    @property
    def real(self) -> bool:
        return self.disk is not None

    def fill(self) -> None:
        if self.disk is not None:
            self._filler = _fill(self.disk, LEAVE_BYTES)
        else:
            self._injected = True

    def free(self) -> None:
        if self._filler is not None:
            self._filler.unlink(missing_ok=True)
            self._filler = None
        self._injected = False

    def notes(self) -> str:
        """The paper's notes as stored on disk (read as another process would)."""
        conn = sqlite3.connect(self.settings.home / "library.sqlite")
        try:
            row = conn.execute("SELECT text FROM notes WHERE paper_id = ?", (self.paper_id,)).fetchone()
        finally:
            conn.close()
        return row[0] if row else ""


def _mount(directory: Path) -> Path | None:
    directory.mkdir(parents=True, exist_ok=True)
    done = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=16m", "tmpfs", str(directory)],
                          capture_output=True, check=False)
    return directory if done.returncode == 0 else None


def _shell(disk: FullDisk, script: ScriptInput) -> tuple[list[str], str, str]:
    """Run the script; problems common to every trial, and what it printed."""
    from paperdesk.shell import run_shell

    out, err = io.StringIO(), io.StringIO()
    problems = []
    try:
        run_shell(disk.settings, keep_going=True, stdin=script, out=out, err=err)
    except BaseException as exc:  # noqa: BLE001 - a crash is the finding
        problems.append(f"shell crashed: {type(exc).__name__}: {exc}")
    text = out.getvalue() + err.getvalue()
    if "Traceback" in text:
        problems.append("a traceback was printed")
    if "> quit" not in out.getvalue():
        problems.append("the script did not run to its end")
    if "the disk is full" not in err.getvalue():
        problems.append("the user was not told the disk is full")
    return problems, out.getvalue(), err.getvalue()


def shell_full_disk_trials(root: Path, embedder, pdf: Path, tally: Tally) -> None:
    """Notes then freed space; quit while full; status, list and search while full; the Notes pane's writer."""
    trials: list[Callable[[FullDisk], tuple[list[str], int]]] = [_notes_then_free, _quit_while_full,
                                                                  _reading_while_full, _pane_notes_at_close]
    for n, trial in enumerate(trials):
        with FullDisk.make(root / f"shell-{n}", embedder, pdf) as disk:
            try:
                problems, lost = trial(disk)
            except Exception as exc:  # noqa: BLE001
                problems, lost = [f"{trial.__name__}: {type(exc).__name__}: {exc}"], 0
            disk.free()
            found, lost_papers, _ = check_home(disk.settings, embedder, {disk.paper_id})
            tally.record([f"{trial.__name__.strip('_')}: {p}" for p in problems + found], lost + len(lost_papers))


def _notes_then_free(disk: FullDisk) -> tuple[list[str], int]:
    disk.fill()
    problems, out, _ = _shell(disk, ScriptInput("list\nopen 1\nnotes first thought\nstatus\nnotes second thought\n# free\n"
                                                "status\nquit\n", {"# free": disk.free}))
    if out.count("state: ") != 2:
        problems.append("status did not answer on the full disk")
    saved = disk.notes().splitlines()
    return problems, 2 - sum(n in saved for n in ("first thought", "second thought"))


def _quit_while_full(disk: FullDisk) -> tuple[list[str], int]:
    disk.fill()
    problems, _, err = _shell(disk, ScriptInput("list\nopen 1\nnotes keep me\nquit\n"))
    return problems, 0 if "here they are:\nkeep me\n" in err else 1


def _reading_while_full(disk: FullDisk) -> tuple[list[str], int]:
    disk.fill()
    problems, out, err = _shell(disk, ScriptInput("status\nlist\nsearch citations\nhelp\nstatus\nopen 1\nnotes x\nquit\n"))
    if out.count("state: ") != 2:
        problems.append("status did not answer on the full disk")
    return problems, 0 if "here they are:\nx\n" in err else 1


def _pane_notes_at_close(disk: FullDisk) -> tuple[list[str], int]:
    from paperdesk.core.desk.desk import Desk
    from paperdesk.core.desk.notes_keeper import NotesNotSaved

    desk = Desk(disk.settings, embedder=disk.embedder)
    disk.fill()
    problems = []
    try:
        desk.save_notes(disk.paper_id, PANE_TEXT).result()
        problems.append("no error on a full disk")
    except NotesNotSaved:
        pass
    disk.free()
    desk.close()  # what ctrl+q does
    return problems, 0 if disk.notes() == PANE_TEXT else 1
