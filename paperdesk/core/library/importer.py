"""`import bibtex FILE`: add the papers a .bib file names, and say what was skipped and why.

An entry is added from its arXiv id (download, like `add`) or from a local PDF
its `file` field names (relative paths are read from the .bib's folder).
Anything else is skipped with the reason. Each add is all-or-nothing (the
library's own guarantee), so a failure or a cancel between entries keeps
every paper added before it. Once arXiv proves unreachable, the remaining
arXiv entries are skipped at once with that reason instead of each waiting
for the network again; an entry that also names a local PDF is added from it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Callable

from paperdesk.core.library import bibtex
from paperdesk.core.errors import (
    ArxivUnreachableError,
    CancelledError,
    InvalidArgumentError,
    InvalidIdError,
    NetworkError,
    NotFoundError,
    PaperdeskError,
)
from paperdesk.core.library.export import CITEKEY, DOI
from paperdesk.core.progress import Progress

if TYPE_CHECKING:
    from paperdesk.core.cancel import CancelToken
    from paperdesk.core.library.library import Library
    from paperdesk.core.sources.arxiv import ArxivClient


@dataclass
class ImportReport:
    added: list[tuple[str, str]] = field(default_factory=list)  # (entry key, paper id)
    present: list[tuple[str, str]] = field(default_factory=list)  # already in the library
    skipped: list[tuple[str, str]] = field(default_factory=list)  # (entry key, reason)
    cancelled: bool = False

    def lines(self) -> list[str]:
        out = [f"added {key} as {pid}" for key, pid in self.added]
        out += [f"already in the library: {key} ({pid})" for key, pid in self.present]
        out += [f"skipped {key}: {reason}" for key, reason in self.skipped]
        return out

    def summary(self, name: str) -> str:
        head = (f"{name}: {len(self.added)} added, {len(self.present)} already in the library, "
                f"{len(self.skipped)} skipped")
        return head + ("; cancelled: the entries after that were not read" if self.cancelled else "")


def read_bib(path: Path) -> list[bibtex.Entry]:
    """The entries of a .bib file; InvalidArgumentError for a missing or unreadable file, with the fix."""
    path = path.expanduser()
    if not path.is_file():
        raise InvalidArgumentError(f"import: no such file {path}; give the path of a .bib file")
    try:
        text = path.read_text(encoding="utf-8-sig", errors="replace")
    except OSError as exc:
        raise InvalidArgumentError(f"import: cannot read {path}: {exc.strerror or exc}") from None
    try:
        return bibtex.parse(text)
    except bibtex.BibtexError as exc:
        raise InvalidArgumentError(f"import: {path.name} is not valid BibTeX ({exc}); nothing was added") from None


def import_entries(
    entries: list[bibtex.Entry],
    base_dir: Path,
    library: "Library",
    arxiv: Callable[[], "ArxivClient"],
    offline_reason: str | None,
    cancel: "CancelToken",
    progress: Callable[[Progress], None] | None = None,
) -> ImportReport:
    """Add what each entry names; returns what was added, already there, and skipped (with why)."""
    report = ImportReport()
    for i, entry in enumerate(entries):
        if cancel.cancelled:
            report.cancelled = True
            break
        if progress is not None:
            progress(Progress("import", i, len(entries), "entries"))
        try:
            outcome = _import_one(entry, base_dir, library, arxiv, offline_reason, cancel)
        except CancelledError:
            report.cancelled = True
            break
        except ArxivUnreachableError as exc:
            offline_reason = f"arXiv is unreachable ({exc}); run import again when online"
            outcome = ("skipped", offline_reason)
            pdf = _first_pdf(entry, base_dir)
            if pdf is not None:
                outcome = _add_local(entry, pdf, library, cancel)
        except (NotFoundError, InvalidIdError, NetworkError, PaperdeskError) as exc:
            outcome = ("skipped", str(exc))
        kind, value = outcome
        getattr(report, kind).append((entry.key, value))
        if kind in ("added", "present"):  # a paper already there gains the entry's key, DOI and tags too
            _keep_entry_fields(library, entry, value)
    if progress is not None:
        progress(Progress("import", len(entries), len(entries), "entries"))
    return report


def _import_one(entry: bibtex.Entry, base_dir: Path, library: "Library", arxiv: Callable[[], "ArxivClient"],
                offline_reason: str | None, cancel: "CancelToken") -> tuple[str, str]:
    arxiv_id = bibtex.arxiv_id_of(entry)
    pdf = _first_pdf(entry, base_dir)
    if arxiv_id:
        if _known(library, arxiv_id):
            return "present", library.get(arxiv_id).id
        if offline_reason is None:
            result = library.add_arxiv(arxiv_id, arxiv(), cancel=cancel)
            return ("added" if result.created else "present", result.paper.id)
        if pdf is None:
            return "skipped", f"arXiv {arxiv_id} cannot be fetched: {offline_reason}"
    if pdf is not None:
        return _add_local(entry, pdf, library, cancel)
    named = bibtex.pdf_paths_of(entry)
    if named:
        return "skipped", f"its PDF {named[0]} does not exist (relative paths are read from {base_dir})"
    return "skipped", "no arXiv id and no local PDF file (add one with file = {path/to/paper.pdf})"


def _known(library: "Library", arxiv_id: str) -> bool:
    try:
        library.get(arxiv_id)
    except PaperdeskError:
        return False
    return True


def _first_pdf(entry: bibtex.Entry, base_dir: Path) -> Path | None:
    for raw in bibtex.pdf_paths_of(entry):
        path = Path(raw).expanduser()
        path = path if path.is_absolute() else base_dir / path
        if path.is_file():
            return path
    return None


def _add_local(entry: bibtex.Entry, pdf: Path, library: "Library", cancel: "CancelToken") -> tuple[str, str]:
    try:
        result = library.add_pdf(pdf, cancel=cancel)
    except CancelledError:
        raise
    except PaperdeskError as exc:
        return "skipped", str(exc)
    return ("added" if result.created else "present"), result.paper.id


def _keep_entry_fields(library: "Library", entry: bibtex.Entry, paper_id: str) -> None:
    """The entry's citation key (when no other paper uses it), its DOI and its keywords as tags."""
    meta = library.store.paper_meta
    if entry.key not in meta.fields_named(CITEKEY).values():
        meta.pin_missing(CITEKEY, {paper_id: entry.key})
    doi = entry.fields.get("doi", "").strip()
    if doi and not doi.lower().startswith("10.48550/arxiv."):
        meta.set_fields([(paper_id, DOI, doi)])
    for word in entry.fields.get("keywords", "").replace(";", ",").split(","):
        try:
            meta.add_tag(paper_id, word.strip().replace(" ", "-"))
        except InvalidArgumentError:
            continue  # a keyword that is no tag (empty, too long) is left out, not an error
