"""The catalogue's rows as Python values: a paper, a stored chunk, a chunk not yet stored."""

from __future__ import annotations

import json
import sqlite3
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from paperdesk.core.db.drafts import Revision
from paperdesk.core.db.pdf_paths import full_pdf_path


@dataclass
class Paper:
    id: str
    title: str
    authors: list[str] = field(default_factory=list)
    abstract: str = ""
    arxiv_id: str | None = None
    version: int | None = None
    published: str | None = None
    updated: str | None = None
    categories: list[str] = field(default_factory=list)
    pdf_path: str | None = None
    source_url: str | None = None
    page_count: int = 0
    added: float = 0.0
    index_state: str = "pending"
    sha256: str | None = None  # of the PDF's bytes, when known: the same file is the same paper

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "title": self.title,
            "authors": self.authors,
            "added": self.added,
            "arxiv_id": self.arxiv_id,
            "version": self.version,
            "published": self.published,
            "updated": self.updated,
            "categories": self.categories,
            "abstract": self.abstract,
            "page_count": self.page_count,
            "pdf_path": self.pdf_path,
        }


@dataclass
class Chunk:
    id: int
    paper_id: str
    ordinal: int
    page_start: int
    page_end: int
    section: str
    text: str


SummaryRevision = Revision  # a summary's revision is a draft revision of kind "summary"


@dataclass
class NewChunk:
    """A chunk not yet stored: what ingest produces."""

    page_start: int
    page_end: int
    section: str
    text: str


def paper_from_row(row: sqlite3.Row, home: Path) -> Paper:
    return Paper(
        id=row["id"],
        title=row["title"],
        authors=json.loads(row["authors"]),
        abstract=row["abstract"],
        arxiv_id=row["arxiv_id"],
        version=row["version"],
        published=row["published"],
        updated=row["updated"],
        categories=json.loads(row["categories"]),
        pdf_path=full_pdf_path(row["pdf_path"], home),
        source_url=row["source_url"],
        page_count=row["page_count"],
        added=row["added"],
        index_state=row["index_state"],
    )
