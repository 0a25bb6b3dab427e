"""Errors a user can act on.

Every class carries a one-line message that says what went wrong and what to
do. Faces (CLI, shell, TUI) print the message; they never show a traceback
for these.
"""

from __future__ import annotations


class PaperdeskError(Exception):
    """Base for every error meant for the user."""


class ConfigError(PaperdeskError):
    """A configuration value is missing or malformed."""


class InvalidIdError(PaperdeskError):
    """A paper id does not look like an arXiv id or a library id."""


class InvalidArgumentError(PaperdeskError):
    """A query, count or page number that cannot be used (empty, zero, past the end)."""


class UnknownPaperError(PaperdeskError):
    """No paper with that id is in the library."""


class NetworkError(PaperdeskError):
    """A remote service could not be reached or kept failing."""


class ArxivUnreachableError(NetworkError):
    """arXiv could not be reached at all (offline, DNS, refused)."""


class NotFoundError(PaperdeskError):
    """A remote resource (paper, PDF) does not exist."""


class PdfError(PaperdeskError):
    """A PDF cannot be ingested: corrupt, encrypted, empty, image-only, not a PDF."""


class LibraryBusyError(PaperdeskError):
    """Another paperdesk process holds the library's write lock."""


class StoreError(PaperdeskError):
    """The library database cannot be opened or written."""


class CancelledError(PaperdeskError):
    """Work stopped because the user cancelled it."""


class ModelOutputError(PaperdeskError):
    """The model's output could not be used (invalid JSON under a schema, after a retry)."""


_DAMAGED_TEXT = ("malformed", "not a database", "file is encrypted")


def damaged_database(exc: BaseException) -> str | None:
    """The one-line message for a SQLite file damaged on disk (None for any other error), naming the repair."""
    import sqlite3

    if isinstance(exc, sqlite3.DatabaseError) and any(t in str(exc).lower() for t in _DAMAGED_TEXT):
        return (f"the library database is damaged ({exc}): run `paperdesk doctor` to check it and repair it; "
                "nothing was changed")
    return None
