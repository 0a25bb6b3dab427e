"""`paperdesk doctor --rebuild`: a new catalogue from the PDFs a library kept, losing nothing.

The catalogue (library.sqlite) can be lost while the PDFs survive: a truncated
or zero-byte file, a disk error. Rebuilding sets a damaged file aside (renamed,
never deleted), reads what metadata it still can from it, and re-adds every
PDF in papers/ and lost+found/ with that metadata (or, for an arXiv PDF whose
row is unreadable, with arXiv's when online). On a healthy catalogue it only
adds back the PDFs that no paper lists. A PDF that cannot be added stays in
lost+found with the reason.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import shutil
import sqlite3
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

from paperdesk.core.config import Settings
from paperdesk.core.errors import InvalidIdError, PaperdeskError
from paperdesk.core.ids import parse_arxiv_id, path_inside
from paperdesk.core.library.repair import LOST_AND_FOUND, move_to_lost_and_found
from paperdesk.core.db.pdf_paths import owned_pdf
from paperdesk.core.db.writelock import WriterLock

STORE_FILE = "library.sqlite"
_SALVAGED = ("title", "authors", "abstract", "arxiv_id", "version", "published", "updated", "categories",
             "source_url", "added")


@dataclass
class RebuildReport:
    set_aside: Path | None = None  # where the damaged catalogue went
    added: list[str] = field(default_factory=list)  # paper ids added back
    metadata: int = 0  # of those, how many got their old metadata back
    restored: list[str] = field(default_factory=list)  # listed papers whose missing PDF came back
    duplicates: int = 0  # copies of a PDF already in the library, removed after a byte-for-byte check
    failed: list[tuple[str, str]] = field(default_factory=list)  # (file name in lost+found, why)

    def to_json(self) -> dict[str, Any]:
        return {"set_aside": str(self.set_aside) if self.set_aside else None, "added": self.added,
                "metadata": self.metadata, "restored": self.restored, "duplicates": self.duplicates,
                "failed": [{"file": f, "error": e} for f, e in self.failed]}


def catalogue_problem(path: Path) -> str | None:
    """What is wrong with the catalogue file at `path`, or None when it is sound (or not made yet)."""
    try:
        size = path.stat().st_size
    except FileNotFoundError:
        return None
    except OSError as exc:
        return f"{path} cannot be read ({exc.strerror or exc})"
    if size == 0:
        return f"{path} is empty (zero bytes): the catalogue of papers was lost"
    try:
        with open(path, "rb") as fh:
            header = fh.read(100)
    except OSError as exc:
        return f"{path} cannot be read ({exc.strerror or exc})"
    if not header.startswith(b"SQLite format 3\0"):
        return f"{path} is not an SQLite database (its first bytes are overwritten)"
    if len(header) == 100 and header[24:28] == header[92:96]:  # the header's page count is valid
        page_size = int.from_bytes(header[16:18], "big") or 65536
        page_size = 65536 if page_size == 1 else page_size
        expected = page_size * int.from_bytes(header[28:32], "big")
        wal = path.with_name(path.name + "-wal")
        if size < expected and not (wal.exists() and wal.stat().st_size > 0):
            return f"{path} is truncated: {size} bytes of the {expected} its header records"
    try:
        conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
        try:
            rows = [r[0] for r in conn.execute("PRAGMA integrity_check")]
        finally:
            conn.close()
    except sqlite3.DatabaseError as exc:
        return f"{path} cannot be read: {exc}"
    if rows != ["ok"]:
        return f"{path} fails PRAGMA integrity_check: {'; '.join(rows[:3])}"
    return None


def library_pdfs(home: Path) -> list[Path]:
    """The PDFs in papers/ and lost+found/."""
    out: list[Path] = []
    for folder in (home / "papers", home / LOST_AND_FOUND):
        if folder.is_dir():
            out += sorted(p for p in folder.iterdir() if p.suffix.lower() == ".pdf" and p.is_file())
    return out


def _salvage(path: Path, stems: list[str]) -> dict[str, dict[str, Any]]:
    """Paper rows still readable in a damaged catalogue, by id (all at once, else one by one)."""
    found: dict[str, dict[str, Any]] = {}
    try:
        conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    except sqlite3.Error:
        return found
    conn.row_factory = sqlite3.Row
    try:
        try:
            rows = conn.execute("SELECT * FROM papers").fetchall()
        except sqlite3.Error:
            rows = []
            for stem in stems:
                try:
                    rows += conn.execute("SELECT * FROM papers WHERE id = ?", (stem,)).fetchall()
                except sqlite3.Error:
                    continue
        for row in rows:
            try:
                found[row["id"]] = {k: row[k] for k in _SALVAGED}
            except (IndexError, KeyError):
                continue
    finally:
        conn.close()
    return found


def _set_aside(home: Path) -> Path:
    """Rename the damaged catalogue (and its WAL files) to library.sqlite.broken-<time>; drop the derived indexes."""
    stamp = time.strftime("%Y%m%d-%H%M%S")
    target = home / f"{STORE_FILE}.broken-{stamp}"
    n = 1
    while target.exists():
        n += 1
        target = home / f"{STORE_FILE}.broken-{stamp}-{n}"
    for suffix in ("", "-wal", "-shm"):
        part = home / (STORE_FILE + suffix)
        if part.exists():
            os.replace(part, target.with_name(target.name + suffix))
    shutil.rmtree(home / "index", ignore_errors=True)  # derived from the old catalogue; rebuilt from the new one
    return target


def _digest(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def _arxiv_id_of(stem: str, row: dict[str, Any] | None) -> tuple[str, int | None] | None:
    if row is not None:
        return (row["arxiv_id"], row["version"]) if row.get("arxiv_id") else None
    for text in (stem, stem.replace("_", "/", 1)):
        try:
            wanted = parse_arxiv_id(text)
        except InvalidIdError:
            continue
        return wanted.base, wanted.version
    return None


def rebuild_library(settings: Settings, embedder=None, arxiv=None,
                    say: Callable[[str], None] | None = None) -> RebuildReport:
    """Rebuild the catalogue from the library's PDFs (see the module docstring). `arxiv` is a callable
    giving an ArxivClient, used only for arXiv PDFs whose old row is unreadable; None: offline."""
    from paperdesk.core.library.library import Library
    from paperdesk.core.sources.arxiv import ArxivPaper

    home = settings.home
    say = say or (lambda _line: None)
    report = RebuildReport()
    db = home / STORE_FILE
    lock = WriterLock(home / "write.lock", wait=settings["library.lock_wait_seconds"], on_wait=say)
    salvaged: dict[str, dict[str, Any]] = {}
    try:
        with lock.hold():
            problem = catalogue_problem(db)
            if problem is not None:
                say(f"the catalogue is damaged: {problem}")
                salvaged = _salvage(db, [p.stem for p in library_pdfs(home)])
                report.set_aside = _set_aside(home)
                say(f"set it aside as {report.set_aside.name} (kept: summaries, notes and discussions stay in it)")
    finally:
        lock.close()
    repair_log = logging.getLogger("paperdesk.repair")
    level = repair_log.level
    repair_log.setLevel(logging.ERROR)  # opening moves unlisted PDFs to lost+found: a step of this rebuild, not news
    try:
        library = Library(settings, embedder=embedder)
    finally:
        repair_log.setLevel(level)
    try:
        client = None
        listed = {Path(p.pdf_path).name for p in library.store.list_papers() if p.pdf_path}
        for pdf in library_pdfs(home):
            if pdf.parent == library.papers_dir and pdf.name in listed:  # its paper's own file
                continue
            row = salvaged.get(pdf.stem)
            arxiv_id = _arxiv_id_of(pdf.stem, row)
            meta = None
            if arxiv_id is not None:
                meta = ArxivPaper(arxiv_id[0], arxiv_id[1], "")
                if row is None and arxiv is not None:
                    try:
                        client = client or arxiv()
                        meta = client.fetch(meta.short_id)
                    except PaperdeskError as exc:
                        say(f"{pdf.name}: arXiv metadata not fetched ({exc}); using the PDF's own")
            _add_back(library, pdf, meta, salvaged, report, say)
        if report.metadata:
            library.rebuild_indexes()  # titles restored after indexing
    finally:
        library.close()
    return report


def _add_back(library, pdf: Path, meta, salvaged: dict[str, dict[str, Any]], report: RebuildReport,
              say: Callable[[str], None]) -> None:
    """Add one unlisted PDF; moved (not copied) into papers/ when its id is known beforehand."""
    digest = _digest(pdf)
    pid = meta.short_id if meta is not None else "local-" + digest[:12]
    existing = library.store.get_paper(pid)
    if existing is not None:
        _already_listed(library, pdf, existing, digest, report, say)
        return
    target = path_inside(library.papers_dir, pid + ".pdf")
    source = pdf
    if not target.exists():
        os.replace(pdf, target)
        source = target
    try:
        result = library.add_pdf(source, meta, name=pdf.name)
    except PaperdeskError as exc:
        if source == target and target.exists():
            move_to_lost_and_found(library.home, target)
        report.failed.append((pdf.name, str(exc)))
        say(f"{pdf.name}: not added ({exc}); it stays in {LOST_AND_FOUND}")
        return
    paper = result.paper
    if not result.created:  # its content was in the library under another id
        _already_listed(library, source, paper, digest, report, say)
        return
    owned = Path(paper.pdf_path or "")
    if source != owned and source.exists() and owned.is_file() and _digest(owned) == digest:
        source.unlink()  # a byte-for-byte copy of the file the paper now owns
    row = salvaged.get(paper.id)
    if row is not None:
        _restore_metadata(library, paper.id, row)
        report.metadata += 1
    report.added.append(paper.id)
    say(f"added {paper.id}  {row['title'] if row else paper.title}")


def _already_listed(library, pdf: Path, paper, digest: str, report: RebuildReport,
                    say: Callable[[str], None]) -> None:
    """A PDF of a paper the library lists: its missing file put back, a byte-for-byte copy removed,
    anything else left in lost+found and reported."""
    own = owned_pdf(library.home, paper.pdf_path)
    if own is not None and own != pdf and not own.exists():
        os.replace(pdf, own)
        report.restored.append(paper.id)
        say(f"{paper.id}: its missing PDF is back from {pdf.name}")
    elif own is not None and own != pdf and own.is_file() and _digest(own) == digest:
        pdf.unlink()
        report.duplicates += 1
    else:
        if pdf.parent.name != LOST_AND_FOUND:
            pdf = move_to_lost_and_found(library.home, pdf)
        report.failed.append((pdf.name, f"{paper.id} is in the library with another file; this one is kept"))


def _restore_metadata(library, paper_id: str, row: dict[str, Any]) -> None:
    fields = {k: v for k, v in row.items() if v not in (None, "", "[]")}
    for key in ("authors", "categories"):
        if key in fields:
            try:
                json.loads(fields[key])
            except (TypeError, ValueError):
                fields.pop(key)
    if not fields:
        return
    assignments = ", ".join(f"{k} = ?" for k in fields)
    with library.store.transaction() as conn:
        conn.execute(f"UPDATE papers SET {assignments} WHERE id = ?", (*fields.values(), paper_id))
