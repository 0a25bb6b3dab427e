"""A real library (SQLite, tantivy, the shared embedder) over a fresh data dir holding some fixture PDFs."""

from __future__ import annotations

from contextlib import contextmanager
from pathlib import Path
from typing import Iterator

from conftest import PAPERS


@contextmanager
def library_with(home: Path, embedder, *pdf_names: str) -> Iterator:
    """A Library at `home` with the named fixture PDFs added, closed on exit; no config file is read."""
    from paperdesk.core.config import load_settings
    from paperdesk.core.library.library import Library

    lib = Library(load_settings(environ={"PAPERDESK_HOME": str(home)}, path=home / "absent.toml"), embedder=embedder)
    try:
        for name in pdf_names:
            lib.add_pdf(PAPERS / name)
        yield lib
    finally:
        lib.close()


def library_fixture(*pdf_names: str):
    """A module-scoped `library` fixture over the named fixture PDFs: `library = library_fixture("x.pdf")`."""
    import pytest

    @pytest.fixture(scope="module")
    def library(tmp_path_factory, embedder):
        with library_with(tmp_path_factory.mktemp("library-home"), embedder, *pdf_names) as lib:
            yield lib

    return library
