"""Fault trials in one process: a full disk, hostile HTTP servers, bad input on every verb.

A full disk is real where the machine allows it (a small tmpfs mounted by
root); `injected_disk_full_trials` raises ENOSPC at each write stage instead
and runs everywhere.
"""

from __future__ import annotations

import contextlib
import errno
import io
import os
import shutil
import sqlite3
import subprocess
import time
from pathlib import Path
from typing import Callable, Iterator

from paperdesk.bench.faults_kill import Tally, check_home
from paperdesk.bench.hostile_http import HostileServer
from paperdesk.core.config import Settings


def run_cli(argv: list[str], env: dict[str, str] | None = None) -> tuple[int, str]:
    """`paperdesk ARGV` in this process: (exit code, stderr). Exceptions propagate: a traceback."""
    from paperdesk.cli import main

    err, out = io.StringIO(), io.StringIO()
    saved = dict(os.environ)
    os.environ.update(env or {})
    try:
        with contextlib.redirect_stderr(err), contextlib.redirect_stdout(out):
            code = main(argv)
    finally:
        os.environ.clear()
        os.environ.update(saved)
    return code, err.getvalue()


def one_line_error(code: int, stderr: str) -> list[str]:
    """Problems with how a command failed: it must exit 1 or 2 with one line and no traceback."""
    problems = []
    if code not in (1, 2):
        problems.append(f"exit {code}")
    lines = [ln for ln in stderr.splitlines() if ln.strip() and not ln.startswith("warning:")]
    if len(lines) != 1 or "Traceback" in stderr:
        problems.append(f"stderr not one line: {stderr[:200]!r}")
    return problems


# -- a full disk -----------------------------------------------------------------------------

def can_mount_tmpfs() -> bool:
    return hasattr(os, "geteuid") and os.geteuid() == 0 and shutil.which("mount") is not None


@contextlib.contextmanager
def small_disk(directory: Path, megabytes: int) -> Iterator[Path]:
    """A real tmpfs of `megabytes` at `directory` (root only)."""
    directory.mkdir(parents=True, exist_ok=True)
    subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={megabytes}m", "tmpfs", str(directory)], check=True)
    try:
        yield directory
    finally:
        subprocess.run(["umount", "-l", str(directory)], check=False)


def _fill(directory: Path, leave: int) -> Path:
    filler = directory / "filler.bin"
    stat = os.statvfs(directory)
    size = max(0, stat.f_bavail * stat.f_frsize - leave)
    with open(filler, "wb") as fh:
        block = b"\0" * (1 << 20)
        while size > 0:
            try:
                fh.write(block[: min(size, len(block))])
            except OSError:
                break
            size -= len(block)
    return filler


def tmpfs_disk_full_trials(root: Path, settings: Settings, embedder, sources: list[Path], tally: Tally,
                           leave_kb: tuple[int, ...] = (40, 300, 700, 1100, 1600, 2400)) -> None:
    """Add a paper to a library on a nearly full tmpfs, with more room each time; check after each."""
    from paperdesk.core.db.diskspace import DiskFullError
    from paperdesk.core.library.library import Library

    with small_disk(root / "disk", 16) as disk:
        home = disk / "home"
        local = settings.with_overrides(home=str(home))
        library = Library(local, embedder=embedder)
        base = library.add_pdf(sources[0]).paper.id
        library.close()
        for n, leave in enumerate(leave_kb):
            source = root / f"incoming-{n}.pdf"
            source.write_bytes(sources[n % len(sources)].read_bytes() + f"\n%full {n}\n".encode())
            filler = _fill(disk, leave * 1024)
            library = Library(local, embedder=embedder)
            problems: list[str] = []
            try:
                library.add_pdf(source)
            except DiskFullError as exc:
                if "\n" in str(exc) or "the disk is full" not in str(exc):
                    problems.append(f"unclear message: {exc}")
            except Exception as exc:  # noqa: BLE001 - anything else is a finding
                problems.append(f"{type(exc).__name__}: {exc}")
            finally:
                library.close()
            code, err = run_cli(["--home", str(home), "list"])  # with the disk still full
            if code != 0:
                problems.append(f"list on a full disk: exit {code}: {err.strip()}")
            found, lost, _ = check_home(local, embedder, {base})
            filler.unlink()
            tally.record(problems + found, len(lost))


def injected_disk_full_trials(settings: Settings, embedder, source: Path, tally: Tally) -> None:
    """ENOSPC raised at each write stage of an add (copy, SQLite, keyword index, vector cache)."""
    from paperdesk.core.library.library import Library
    from paperdesk.core.search.keyword import KeywordIndex
    from paperdesk.core.search.vectors import VectorIndex
    from paperdesk.core.db.store import Store

    def enospc(*_a, **_k):
        raise OSError(errno.ENOSPC, "No space left on device")

    def sqlite_full(*_a, **_k):
        raise sqlite3.OperationalError("database or disk is full")

    def tantivy_full(*_a, **_k):
        raise ValueError("Failed to commit: No space left on device (os error 28)")

    stages: list[tuple[object, str, Callable]] = [
        (shutil, "copyfileobj", enospc),  # the PDF copied into the library
        (Store, "add_paper", sqlite_full),
        (KeywordIndex, "replace_papers", tantivy_full),
        (VectorIndex, "save_cache", enospc),
    ]
    for n, (owner, name, fault) in enumerate(stages):
        copy = settings.home.parent / f"injected-{n}.pdf"
        copy.write_bytes(source.read_bytes() + f"\n%injected {n}\n".encode())
        library = Library(settings, embedder=embedder)
        before = {p.id for p in library.store.list_papers()}
        original = getattr(owner, name)
        setattr(owner, name, fault)
        problems: list[str] = []
        try:
            library.add_pdf(copy)
            problems.append(f"{name}: no error on a full disk")
        except Exception as exc:  # noqa: BLE001
            if "the disk is full" not in str(exc):
                problems.append(f"{name}: {type(exc).__name__}: {exc}")
        finally:
            setattr(owner, name, original)
            library.close()
        found, lost, present = check_home(settings, embedder, before)
        if present != before:
            problems.append(f"{name}: the failed add left {sorted(present - before)}")
        tally.record(problems + found, len(lost))


# -- hostile HTTP ----------------------------------------------------------------------------

def http_trials(directory: Path, tally_slow: Tally, tally_big: Tally) -> None:
    """A trickling server must hit the total deadline; oversized bodies the size cap; no file left."""
    from paperdesk.core.errors import NetworkError
    from paperdesk.core.sources.arxiv import ArxivClient, ArxivPaper

    server = HostileServer().start()
    server.huge_bytes = 3_000_000
    try:
        client = ArxivClient(server.base_url, delay_seconds=0, num_retries=0, timeout=5,
                             max_pdf_bytes=1_000_000, download_deadline=1.0)
        for path, tally, needle, limit in (("/pdf/trickle", tally_slow, "took too long", 4.0),
                                            ("/pdf/huge", tally_big, "over 1 MB", 5.0),
                                            ("/pdf/huge-chunked", tally_big, "over 1 MB", 5.0)):
            directory.mkdir(parents=True, exist_ok=True)
            paper = ArxivPaper("2302.07302", 1, "t", pdf_url=server.url(path))
            start = time.monotonic()
            problems = []
            try:
                client.download_pdf(paper, directory / "x.download.tmp")
                problems.append(f"{path}: accepted")
            except NetworkError as exc:
                if needle not in str(exc):
                    problems.append(f"{path}: {exc}")
            took = time.monotonic() - start
            if took > limit:
                problems.append(f"{path}: took {took:.1f}s")
            left = list(directory.iterdir())
            if left:
                problems.append(f"{path}: left {[p.name for p in left]}")
            tally.record(problems)
    finally:
        server.stop()


# -- bad input on every verb -----------------------------------------------------------------

HUGE = "9" * 25
BAD_UTF8 = "\udcff\udcfe x"  # how Python hands over argv bytes that are not UTF-8


def bad_input_cases(home: Path, paper_id: str | None, scratch: Path) -> list[tuple[list[str], dict[str, str]]]:
    """(argv, extra environment) pairs that must each fail with one line."""
    shown = paper_id or "local-000000000000"
    a_file = scratch / "a-file"
    a_file.write_text("not a directory")
    h = ["--home", str(home), "--offline"]
    return [
        (h + ["list", "--page", HUGE], {}),
        (h + ["show", shown, "--page", HUGE], {}),
        (h + ["show", shown, "--page", "-" + HUGE], {}),
        (h + ["search", "x", "--k", HUGE], {}),
        (h + ["ask", "x", "--k", HUGE], {}),
        (h + ["add", "a" * 10_000], {}),
        (h + ["add", ""], {}),
        (h + ["add", "２３０２.０７３０２"], {}),
        (h + ["show", BAD_UTF8], {}),
        (h + ["remove", BAD_UTF8], {}),
        (h + ["undo", BAD_UTF8], {}),
        (h + ["find", BAD_UTF8], {}),
        (h + ["list"], {"PAPERDESK_INGEST_OVERLAP_WORDS": "1000"}),
        (h + ["list"], {"PAPERDESK_ARXIV_TIMEOUT": "inf"}),
        (h + ["list"], {"PAPERDESK_LLM_API_KEY": "ключ"}),
        (["--home", str(a_file), "list"], {}),
        (["--home", str(a_file / "sub"), "list"], {}),
    ]


def bad_input_trials(home: Path, paper_id: str | None, scratch: Path, tally: Tally) -> None:
    for argv, env in bad_input_cases(home, paper_id, scratch):
        try:
            code, err = run_cli(argv, env)
            problems = one_line_error(code, err)
        except Exception as exc:  # noqa: BLE001 - a traceback is the finding
            problems = [f"{type(exc).__name__}: {exc}"]
        tally.record([f"{argv[-3:]}: {p}" for p in problems])
    from paperdesk.core.config import load_settings
    from paperdesk.shell import run_shell

    saved = dict(os.environ)
    os.environ["PAPERDESK_HOME"] = str(home)
    try:
        out, err = io.StringIO(), io.StringIO()
        code = run_shell(load_settings().with_overrides(offline=True), stdin=io.StringIO(f"find {BAD_UTF8}\nquit\n"),
                         out=out, err=err)
        problems = [] if "not valid UTF-8" in err.getvalue() else [f"shell: {err.getvalue()[:200]!r}"]
    except Exception as exc:  # noqa: BLE001
        problems, code = [f"shell: {type(exc).__name__}: {exc}"], -1
    finally:
        os.environ.clear()
        os.environ.update(saved)
    tally.record(problems)
