"""Fault trials on the library folder itself: a lost catalogue beside its PDFs, and a copied library.

Rebuild trials damage library.sqlite of a built library (truncated at seeded
sizes, or zero bytes), check that doctor calls it a problem, run `paperdesk
doctor --rebuild` and check the library: clean, every paper back, every PDF
byte for byte. Copied-library trials copy a library (some with the absolute
PDF paths of older versions), remove every paper in the copy, and check that
the original is untouched. "lost" counts papers (or their PDFs) that are gone.
"""

from __future__ import annotations

import hashlib
import os
import random
import shutil
import sqlite3
from pathlib import Path

from paperdesk.bench.faults_kill import Tally, check_home
from paperdesk.bench.faults_misc import run_cli
from paperdesk.core.config import Settings, load_settings


def _settings(home: Path) -> Settings:
    return load_settings(environ={"PAPERDESK_HOME": str(home)}, path=home.parent / "no-config.toml")


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def build_base(home: Path, embedder, pdfs: list[Path]) -> dict[str, str]:
    """A library of `pdfs`; paper id -> sha256 of its PDF."""
    from paperdesk.core.library.library import Library

    library = Library(_settings(home), embedder=embedder)
    try:
        return {library.add_pdf(pdf).paper.id: _digest(pdf) for pdf in pdfs}
    finally:
        library.close()


def _pdf_losses(home: Path, papers: dict[str, str]) -> set[str]:
    """Papers whose PDF is nowhere in the home, byte for byte."""
    present = {_digest(p) for p in home.rglob("*.pdf")}
    return {pid for pid, digest in papers.items() if digest not in present}


def rebuild_trials(root: Path, embedder, pdfs: list[Path], rng: random.Random, tally_cut: Tally,
                   tally_empty: Tally, cuts: int = 4) -> None:
    """Truncate the catalogue at `cuts` seeded sizes, and empty it once; doctor --rebuild each time."""
    from paperdesk.core.library.health import check_sqlite

    base = root / "rebuild-base"
    papers = build_base(base, embedder, pdfs)
    size = (base / "library.sqlite").stat().st_size
    damages = [("cut", rng.randrange(4096, size)) for _ in range(cuts)] + [("empty", 0)]
    for n, (kind, keep) in enumerate(damages):
        home = root / f"rebuild-{n}"
        shutil.copytree(base, home, symlinks=True)
        os.truncate(home / "library.sqlite", keep)
        settings = _settings(home)
        problems = []
        if check_sqlite(settings).status != "problem":
            problems.append(f"doctor passes a catalogue cut to {keep} bytes")
        code, err = run_cli(["--offline", "doctor", "--rebuild"], env={"PAPERDESK_HOME": str(home)})
        if code != 0:
            problems.append(f"doctor --rebuild exit {code}: {err.strip()[:200]}")
        found, lost, _ = check_home(settings, embedder, set(papers))
        lost |= _pdf_losses(home, papers)
        (tally_cut if kind == "cut" else tally_empty).record(problems + found, len(lost))
        shutil.rmtree(home, ignore_errors=True)


def _absolute_rows(home: Path) -> None:
    """Make the rows what paperdesk stored before paths were relative to the home."""
    conn = sqlite3.connect(home / "library.sqlite", isolation_level=None)
    conn.execute("UPDATE papers SET pdf_path = ? || '/' || pdf_path WHERE pdf_path NOT LIKE '/%'", (str(home),))
    conn.execute("UPDATE schema_versions SET version = 1 WHERE owner = 'catalogue'")
    conn.close()


def copied_library_trials(root: Path, embedder, pdfs: list[Path], tally: Tally) -> None:
    """cp -a a library, remove every paper in the copy: the original keeps every paper and PDF."""
    base = root / "copy-base"
    papers = build_base(base, embedder, pdfs)
    for n, older in enumerate((False, True)):
        original, copy = root / f"original-{n}", root / f"copy-{n}"
        shutil.copytree(base, original, symlinks=True)
        if older:
            _absolute_rows(original)
        shutil.copytree(original, copy, symlinks=True)
        problems = []
        for pid in papers:
            code, err = run_cli(["remove", pid], env={"PAPERDESK_HOME": str(copy)})
            if code != 0:
                problems.append(f"remove {pid} in the copy: exit {code}: {err.strip()[:160]}")
        if any(copy.glob("papers/*.pdf")):
            problems.append("the copy kept PDFs of removed papers")
        found, lost, _ = check_home(_settings(original), embedder, set(papers))
        lost |= _pdf_losses(original, papers)
        tally.record(problems + found, len(lost))
        shutil.rmtree(original, ignore_errors=True), shutil.rmtree(copy, ignore_errors=True)
