"""Adding many papers in one run: files, folders (every PDF under them) and arXiv ids, with one library and
one embedder for the whole batch.

Each paper is added on its own and all or nothing (Library.add_pdf), so a stop at any moment (Ctrl-C, a
kill) keeps every paper already added, and running the same batch again skips them: a PDF is known by the
sha256 of its bytes. A source that fails is listed with its reason and the batch goes on.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Callable

from paperdesk.core.commands.paper_sources import PaperSource, add_source, file_source
from paperdesk.core.errors import CancelledError, PaperdeskError
from paperdesk.core.ids import looks_like_arxiv, parse_arxiv_id
from paperdesk.core.progress import Progress, counted

if TYPE_CHECKING:
    from paperdesk.core.cancel import CancelToken
    from paperdesk.core.library.library import Library
    from paperdesk.core.sources.arxiv import ArxivClient


@dataclass
class BatchReport:
    added: list[tuple[str, str]] = field(default_factory=list)  # (source, paper id)
    present: list[tuple[str, str]] = field(default_factory=list)  # already in the library
    failed: list[tuple[str, str]] = field(default_factory=list)  # (source, why)
    skipped: list[tuple[str, str]] = field(default_factory=list)  # not a PDF, not found
    stopped: bool = False  # interrupted: what is listed was done, the rest was not tried
    seconds: float = 0.0

    def summary(self) -> str:
        done = len(self.added) + len(self.present) + len(self.failed)
        head = (f"{counted(len(self.added), 'paper')} added, {len(self.present)} already in the library, "
                f"{len(self.skipped)} skipped, {len(self.failed)} failed in {self.seconds:.0f} s")
        if self.stopped:
            head += f"; stopped after {done}: run the same add again to go on (papers added are skipped)"
        return head

    def to_json(self) -> dict:
        return {"added": [{"source": s, "id": i} for s, i in self.added],
                "present": [{"source": s, "id": i} for s, i in self.present],
                "failed": [{"source": s, "why": w} for s, w in self.failed],
                "skipped": [{"source": s, "why": w} for s, w in self.skipped],
                "stopped": self.stopped, "seconds": round(self.seconds, 1)}


def expand(arguments: list[str]) -> tuple[list[PaperSource], list[tuple[str, str]]]:
    """The sources the arguments name, in order and each once: files, every PDF under a folder (sorted),
    arXiv ids; and (argument, why) for what names nothing addable."""
    sources: list[PaperSource] = []
    skipped: list[tuple[str, str]] = []
    seen: set[str] = set()

    def take(source: PaperSource, key: str) -> None:
        if key not in seen:
            seen.add(key)
            sources.append(source)

    for text in arguments:
        if not text.strip():
            skipped.append((text, "an empty argument names nothing"))
            continue
        path = Path(text).expanduser()
        try:
            kind = "folder" if path.is_dir() else "file" if path.is_file() else ""
        except (OSError, ValueError):  # a name no file system takes (too long, a NUL)
            kind = ""
        if kind == "folder":
            pdfs = sorted(p for p in path.rglob("*") if p.is_file() and p.suffix.lower() == ".pdf")
            if not pdfs:
                skipped.append((text, "no PDF files in this folder or below"))
            for pdf in pdfs:
                take(file_source(pdf), str(pdf.resolve()))
        elif kind == "file":
            if path.suffix.lower() != ".pdf" and not _starts_like_pdf(path):
                skipped.append((text, "not a PDF file"))
                continue
            take(file_source(path), str(path.resolve()))
        elif looks_like_arxiv(text):
            aid = parse_arxiv_id(text)
            take(PaperSource(text, arxiv=aid), f"arxiv:{aid}")
        else:
            skipped.append((text, "no such file or folder, and not an arXiv id"))
    return sources, skipped


def _starts_like_pdf(path: Path) -> bool:
    try:
        with path.open("rb") as f:
            return f.read(5) == b"%PDF-"
    except OSError:
        return False


BatchProgress = Callable[[int, int, str, "Progress | None", float | None], None]


def add_many(library: "Library", sources: list[PaperSource], client: "ArxivClient | None",
             on_progress: BatchProgress | None = None, cancel: "CancelToken | None" = None,
             report: BatchReport | None = None) -> BatchReport:
    """Add each source in turn; `on_progress(done, total, current, stage progress, eta seconds)`."""
    report = report or BatchReport()
    start = time.monotonic()
    total = len(sources)
    for done, source in enumerate(sources):
        if cancel is not None and cancel.cancelled:
            report.stopped = True
            break
        elapsed = time.monotonic() - start
        eta = elapsed / done * (total - done) if done else None
        name = source.path.name if source.path is not None else source.text

        def stage(p: Progress, done: int = done, name: str = name, eta: float | None = eta) -> None:
            if on_progress is not None:
                on_progress(done, total, name, p, eta)

        stage(Progress("start", 0, None, ""))
        try:
            result = add_source(library, source, client, progress=stage, cancel=cancel)
        except (CancelledError, KeyboardInterrupt):
            report.stopped = True
            break
        except PaperdeskError as exc:
            report.failed.append((source.text, str(exc)))
            continue
        except OSError as exc:  # unreadable, vanished meanwhile
            report.failed.append((source.text, f"cannot read it ({exc.strerror or exc})"))
            continue
        (report.added if result.created else report.present).append((source.text, result.paper.id))
    report.seconds = time.monotonic() - start
    if on_progress is not None and not report.stopped:
        on_progress(total, total, "", None, 0.0)
    return report
