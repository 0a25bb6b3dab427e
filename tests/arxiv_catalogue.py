"""The papers the fake arXiv server knows: the four real PDFs in fixtures/papers.

The records themselves are data, in fixtures/arxiv_catalogue.json.

Titles, authors and abstracts are copied from each PDF's first page (read with
PyMuPDF, line-break hyphens and footnote marks removed). Dates, categories and
comments are close to the real arXiv records but were not checked against
arXiv (no network here); tests should not depend on their exact values.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

FIXTURES = Path(__file__).parent / "fixtures"
PAPERS_DIR = FIXTURES / "papers"


@dataclass(frozen=True)
class CatalogueEntry:
    arxiv_id: str  # base id, no version
    version: int
    title: str
    authors: tuple[str, ...]
    abstract: str
    published: str  # RFC 3339, as arXiv writes it
    updated: str
    categories: tuple[str, ...]  # the first one is the primary category
    comment: str
    pdf_file: str  # name inside PAPERS_DIR

    @property
    def short_id(self) -> str:
        return f"{self.arxiv_id}v{self.version}"

    @property
    def pdf_path(self) -> Path:
        return PAPERS_DIR / self.pdf_file


def _entry(row: dict) -> CatalogueEntry:
    return CatalogueEntry(**{**row, "authors": tuple(row["authors"]), "categories": tuple(row["categories"])})


CATALOGUE: tuple[CatalogueEntry, ...] = tuple(
    _entry(row) for row in json.loads((FIXTURES / "arxiv_catalogue.json").read_text())
)

BY_ID: dict[str, CatalogueEntry] = {p.arxiv_id: p for p in CATALOGUE}
