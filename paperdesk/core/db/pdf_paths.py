"""Where a paper's PDF lives: stored relative to the library home, and removed only from inside it.

A library is a folder; a copy of it (cp -a, a backup restored elsewhere) must
open its own PDFs and, when a paper is removed there, delete its own copy and
never the original's. So the catalogue stores `papers/X.pdf`, and the app sees
that joined to the home it opened.
"""

from __future__ import annotations

import os
import sqlite3
from pathlib import Path


def stored_pdf_path(path: str | None, home: Path) -> str | None:
    """How a PDF's path is stored: relative to the library home when it lies inside it, so a copied
    or moved library finds (and removes) its own copy, never the original's."""
    if not path or not Path(path).is_absolute():
        return path
    absolute = Path(os.path.abspath(path))
    for root in dict.fromkeys((Path(os.path.abspath(home)), Path(home).resolve())):
        try:
            return absolute.relative_to(root).as_posix()
        except ValueError:
            continue
    return path


def full_pdf_path(stored: str | None, home: Path) -> str | None:
    """The stored path as the app uses it: relative paths are under this library's home."""
    if not stored or Path(stored).is_absolute():
        return stored
    return str(Path(home) / stored)


def relative_pdf_paths(conn: sqlite3.Connection) -> None:
    """Rows from before paths were relative: inside the home, or a copied library's `<old home>/papers/X.pdf`
    whose own papers/X.pdf exists, become `papers/X.pdf`; any other absolute path stays as it is."""
    files = [r[2] for r in conn.execute("PRAGMA database_list") if r[1] == "main"]
    if not files or not files[0]:
        return
    home = Path(files[0]).parent
    for paper_id, path in conn.execute("SELECT id, pdf_path FROM papers WHERE pdf_path IS NOT NULL").fetchall():
        new = stored_pdf_path(path, home)
        old = Path(path)
        if new == path and old.is_absolute() and old.parent.name == "papers" and (home / "papers" / old.name).is_file():
            new = f"papers/{old.name}"
        if new != path:
            conn.execute("UPDATE papers SET pdf_path = ? WHERE id = ?", (new, paper_id))


def owned_pdf(home: Path, path: str | None) -> Path | None:
    """`path` when it is a file inside this library's papers/ folder (safe to delete), else None."""
    if not path:
        return None
    papers = Path(os.path.abspath(Path(home) / "papers"))
    candidate = Path(os.path.abspath(full_pdf_path(path, home) or ""))
    if candidate.parent != papers:
        return None
    try:  # a papers/ folder that is a link to elsewhere, or a PDF that is a link, is not ours to delete
        if papers.is_symlink() or candidate.resolve().parent != papers.resolve():
            return None
    except OSError:
        return None
    return candidate
