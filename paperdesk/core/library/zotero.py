"""`import zotero [DIR]`: the papers of a Zotero data directory, with Zotero's own metadata.

`zotero.sqlite` is opened read-only (a copy is read when Zotero, running, holds its lock); each regular
item's PDF attachment is found under `storage/<key>/` (or at its linked path) and added, and the paper
record takes Zotero's title, authors, date and abstract rather than what parsing the PDF guesses, plus its
DOI, its arXiv id (from Extra, the URL or an arXiv DOI), its collections as tags and its notes (HTML as
text) as the paper's notes. Items without a PDF are listed as skipped, with why.
"""

from __future__ import annotations

import html
import re
import shutil
import sqlite3
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Callable

from paperdesk.core.errors import CancelledError, InvalidArgumentError, PaperdeskError
from paperdesk.core.library.export import DOI
from paperdesk.core.progress import Progress, counted

if TYPE_CHECKING:
    from paperdesk.core.cancel import CancelToken
    from paperdesk.core.library.library import Library

SKIP_TYPES = ("attachment", "note", "annotation")
_ARXIV = re.compile(r"(?:arxiv\.org/(?:abs|pdf)/|arXiv:\s*|10\.48550/arXiv\.)((?:\d{4}\.\d{4,5}|[a-z-]+(?:\.[A-Z]{2})?/\d{7})"
                    r"(?:v\d+)?)", re.I)


@dataclass
class ZoteroItem:
    key: str
    title: str
    authors: list[str]
    date: str = ""
    doi: str = ""
    abstract: str = ""
    arxiv_id: str = ""
    collections: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    pdfs: list[Path] = field(default_factory=list)  # attachments that are PDFs, existing or not
    kind: str = ""

    @property
    def year(self) -> str:
        found = re.match(r"\d{4}", self.date)
        return found.group(0) if found else ""


def default_dir() -> Path:
    return Path.home() / "Zotero"


def read_library(data_dir: Path) -> list[ZoteroItem]:
    """Every regular item of the Zotero library at `data_dir` (deleted ones left out), in Zotero's order."""
    database = data_dir / "zotero.sqlite"
    if not database.is_file():
        raise InvalidArgumentError(f"import zotero: no zotero.sqlite in {data_dir}; give Zotero's data directory "
                                   "(Zotero: Settings > Advanced > Files and Folders)")
    with _readable(database) as conn:
        try:
            return _items(conn, data_dir)
        except sqlite3.DatabaseError as exc:
            raise InvalidArgumentError(f"import zotero: {database} is not a Zotero library this paperdesk can read "
                                       f"({exc})") from None


class _readable:
    """A read-only connection to zotero.sqlite, or to a copy of it when Zotero holds its lock."""

    def __init__(self, database: Path) -> None:
        self.database = database
        self.copy: Path | None = None
        self.conn: sqlite3.Connection | None = None

    def __enter__(self) -> sqlite3.Connection:
        try:
            self.conn = sqlite3.connect(f"{self.database.resolve().as_uri()}?mode=ro", uri=True)  # spaces, # ...
            self.conn.execute("SELECT count(*) FROM items").fetchone()
        except sqlite3.OperationalError as exc:
            if "locked" not in str(exc) and "busy" not in str(exc):
                raise InvalidArgumentError(f"import zotero: cannot read {self.database} ({exc})") from None
            if self.conn is not None:
                self.conn.close()
            folder = Path(tempfile.mkdtemp(prefix="paperdesk-zotero-"))
            self.copy = folder / "zotero.sqlite"
            shutil.copyfile(self.database, self.copy)  # Zotero is running: read what it has written so far
            self.conn = sqlite3.connect(f"{self.copy.resolve().as_uri()}?mode=ro", uri=True)
        return self.conn

    def __exit__(self, *exc: object) -> None:
        if self.conn is not None:
            self.conn.close()
        if self.copy is not None:
            shutil.rmtree(self.copy.parent, ignore_errors=True)


def _items(conn: sqlite3.Connection, data_dir: Path) -> list[ZoteroItem]:
    deleted = {r[0] for r in conn.execute("SELECT itemID FROM deletedItems")}
    rows = conn.execute("SELECT i.itemID, i.key, t.typeName FROM items i JOIN itemTypes t USING (itemTypeID) "
                        "ORDER BY i.itemID").fetchall()
    fields: dict[int, dict[str, str]] = {}
    for item_id, name, value in conn.execute(
            "SELECT d.itemID, f.fieldName, v.value FROM itemData d JOIN fields f USING (fieldID) "
            "JOIN itemDataValues v USING (valueID)"):
        fields.setdefault(item_id, {})[name] = str(value)
    creators: dict[int, list[str]] = {}
    for item_id, first, last in conn.execute(
            "SELECT ic.itemID, c.firstName, c.lastName FROM itemCreators ic JOIN creators c USING (creatorID) "
            "ORDER BY ic.itemID, ic.orderIndex"):
        creators.setdefault(item_id, []).append(" ".join(p for p in (first, last) if p).strip())
    collections: dict[int, list[str]] = {}
    for item_id, name in conn.execute("SELECT ci.itemID, c.collectionName FROM collectionItems ci "
                                      "JOIN collections c USING (collectionID) ORDER BY c.collectionName"):
        collections.setdefault(item_id, []).append(name)
    notes: dict[int, list[str]] = {}
    for parent, note in conn.execute("SELECT parentItemID, note FROM itemNotes WHERE parentItemID IS NOT NULL "
                                     "ORDER BY itemID"):
        if parent not in deleted and (text := note_text(note or "")):
            notes.setdefault(parent, []).append(text)
    keys = {item_id: key for item_id, key, _ in rows}
    pdfs: dict[int, list[Path]] = {}
    links: dict[int, list[str]] = {}  # the URLs of an item's attachments ("Submitted Version" on arXiv)
    for item_id, parent in conn.execute("SELECT itemID, parentItemID FROM itemAttachments"):
        if parent is not None and fields.get(item_id, {}).get("url"):
            links.setdefault(parent, []).append(fields[item_id]["url"])
    for item_id, parent, content, path, mode in conn.execute(
            "SELECT itemID, parentItemID, contentType, path, linkMode FROM itemAttachments"):
        if parent is None or item_id in deleted or not path:
            continue
        if content != "application/pdf" and not str(path).lower().endswith(".pdf"):
            continue
        if str(path).startswith("storage:"):
            pdfs.setdefault(parent, []).append(data_dir / "storage" / keys[item_id] / str(path)[len("storage:"):])
        elif Path(str(path)).is_absolute():  # a linked file
            pdfs.setdefault(parent, []).append(Path(str(path)))
    out = []
    for item_id, key, kind in rows:
        if kind in SKIP_TYPES or item_id in deleted:
            continue
        f = fields.get(item_id, {})
        doi = f.get("DOI", "").strip()
        found = _ARXIV.search(" ".join((f.get("extra", ""), f.get("url", ""), doi, f.get("archiveID", ""),
                                        *links.get(item_id, []))))
        out.append(ZoteroItem(key, " ".join(f.get("title", "").split()), creators.get(item_id, []),
                              f.get("date", "").split(" ")[0], "" if doi.lower().startswith("10.48550/") else doi,
                              " ".join(f.get("abstractNote", "").split()), found.group(1) if found else "",
                              collections.get(item_id, []), notes.get(item_id, []), pdfs.get(item_id, []), kind))
    return out


def note_text(note: str) -> str:
    """A Zotero note (HTML) as plain text: paragraphs and list items on their own lines."""
    text = re.sub(r"(?i)<\s*(br|/p|/div|/li|/h\d)\s*/?>", "\n", note)
    text = re.sub(r"(?i)<\s*li[^>]*>", "- ", text)
    text = html.unescape(re.sub(r"<[^>]+>", "", text))
    lines = [" ".join(line.split()) for line in text.splitlines()]
    return "\n".join(line for line in lines if line).strip()


@dataclass
class ZoteroReport:
    added: list[tuple[str, str]] = field(default_factory=list)  # (item title, paper id)
    present: list[tuple[str, str]] = field(default_factory=list)
    skipped: list[tuple[str, str]] = field(default_factory=list)  # (item title, why)
    failed: list[tuple[str, str]] = field(default_factory=list)
    cancelled: bool = False

    def lines(self) -> list[str]:
        return ([f"added {t!r} as {pid}" for t, pid in self.added]
                + [f"already in the library: {t!r} ({pid})" for t, pid in self.present]
                + [f"skipped {t!r}: {why}" for t, why in self.skipped]
                + [f"failed {t!r}: {why}" for t, why in self.failed])

    def summary(self) -> str:
        head = (f"Zotero: {counted(len(self.added), 'paper')} added, {len(self.present)} already in the library, "
                f"{len(self.skipped)} skipped, {len(self.failed)} failed")
        return head + ("; stopped: run import zotero again to go on" if self.cancelled else "")


def import_zotero(library: "Library", data_dir: Path, cancel: "CancelToken | None" = None,
                  progress: Callable[[Progress], None] | None = None,
                  add_notes: Callable[[str, str], None] | None = None) -> ZoteroReport:
    """Add the PDF of every item of the Zotero library at `data_dir`, with Zotero's metadata (see above).
    `add_notes(paper_id, text)` keeps a note (the Desk's notes writer; the store's by default)."""
    from paperdesk.core.db.desk_store import DeskStore

    items = read_library(data_dir)
    report = ZoteroReport()
    keep_note = add_notes or (lambda pid, text: DeskStore(library.store).append_notes(pid, text))
    for n, item in enumerate(items):
        if cancel is not None and cancel.cancelled:
            report.cancelled = True
            break
        if progress is not None:
            progress(Progress("import", n, len(items), "items"))
        name = item.title or item.key
        existing = [p for p in item.pdfs if p.is_file()]
        if not existing:
            why = (f"its PDF is missing ({item.pdfs[0].name} is not in {item.pdfs[0].parent})" if item.pdfs
                   else "no PDF attachment")
            report.skipped.append((name, why))
            continue
        try:
            result = library.add_pdf(existing[0], cancel=cancel, name=existing[0].name)
        except CancelledError:
            report.cancelled = True
            break
        except PaperdeskError as exc:
            report.failed.append((name, str(exc)))
            continue
        pid = result.paper.id
        _keep_metadata(library, pid, item, fresh=result.created)
        if result.created:
            for note in item.notes:
                keep_note(pid, note)
        (report.added if result.created else report.present).append((name, pid))
    if progress is not None:
        progress(Progress("import", len(items), len(items), "items"))
    return report


def _keep_metadata(library: "Library", paper_id: str, item: ZoteroItem, fresh: bool) -> None:
    """Zotero's record over what parsing guessed (a paper just added), its DOI and collections as tags."""
    import json

    if fresh:
        values: dict[str, object] = {}
        if item.title:
            values["title"] = item.title
        if item.authors:
            values["authors"] = json.dumps(item.authors)
        if item.date:
            values["published"] = item.date if re.fullmatch(r"\d{4}-\d{2}-\d{2}", item.date) and \
                not item.date.endswith("-00") else (item.year or None)
        if item.abstract:
            values["abstract"] = item.abstract
        if item.arxiv_id:
            values["arxiv_id"] = re.sub(r"v\d+$", "", item.arxiv_id)
            stamped = library.store.get_paper(paper_id)
            if stamped is not None and stamped.arxiv_id not in (None, values["arxiv_id"]):
                # page 1's stamp named another arXiv paper: its version is not this one's
                version = re.search(r"v(\d+)$", item.arxiv_id)
                values["version"] = int(version.group(1)) if version else None
        if values:
            assignments = ", ".join(f"{k} = ?" for k in values)
            with library.store.transaction() as conn:
                conn.execute(f"UPDATE papers SET {assignments} WHERE id = ?", (*values.values(), paper_id))
    meta = library.store.paper_meta
    if item.doi:
        meta.set_fields([(paper_id, DOI, item.doi)])
    for name in item.collections:
        try:
            meta.add_tag(paper_id, "-".join(name.lower().split()))
        except InvalidArgumentError:
            continue  # a collection name that makes no tag (too long, no letters) is left out
