"""What a user adds to a paper beyond its text: tags, and pinned fields (citation key, DOI).

Its tables live in the library's SQLite file under their own owner ("paper_meta")
and migrate through `schema.migrate`, so a library made before tags existed
gains them on open. Rows hang off `papers` with ON DELETE CASCADE: removing a
paper removes its tags and fields in the same transaction.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Sequence

from paperdesk.core.errors import InvalidArgumentError
from paperdesk.core.db.schema import Migration, script

if TYPE_CHECKING:
    from paperdesk.core.db.store import Store

OWNER = "paper_meta"

_V1 = script("""
CREATE TABLE paper_tags (
    paper_id TEXT NOT NULL REFERENCES papers(id) ON DELETE CASCADE,
    tag      TEXT NOT NULL,
    PRIMARY KEY (paper_id, tag)
);
CREATE INDEX paper_tags_tag ON paper_tags(tag);
CREATE TABLE paper_fields (
    paper_id TEXT NOT NULL REFERENCES papers(id) ON DELETE CASCADE,
    name     TEXT NOT NULL,
    value    TEXT NOT NULL,
    PRIMARY KEY (paper_id, name)
);
""")

MIGRATIONS: list[Migration] = [_V1]

# A tag is one word a shell can type without quotes: letters, digits and - _ . / : +
_TAG = re.compile(r"[\w][\w\-./:+]{0,63}")


def clean_tag(text: str) -> str:
    """A tag as stored (lower case), or InvalidArgumentError saying what a tag may be."""
    tag = text.strip().lower()
    if not _TAG.fullmatch(tag):
        raise InvalidArgumentError(f"{text!r} is not a tag; a tag is one word of letters, digits and - _ . / : + "
                                   "(at most 64 characters), e.g. tag 2 to-read")
    return tag


class PaperMeta:
    """Tags and pinned fields of papers, over the catalogue Store's connection."""

    def __init__(self, store: "Store") -> None:
        self._store = store

    # -- tags ------------------------------------------------------------------------------

    def add_tag(self, paper_id: str, tag: str) -> bool:
        """Tag a paper; False when it already had the tag."""
        tag = clean_tag(tag)
        with self._store.transaction() as conn:
            cur = conn.execute("INSERT OR IGNORE INTO paper_tags (paper_id, tag) VALUES (?, ?)", (paper_id, tag))
            return cur.rowcount > 0

    def remove_tag(self, paper_id: str, tag: str) -> bool:
        """Untag a paper; False when it did not have the tag."""
        tag = clean_tag(tag)
        with self._store.transaction() as conn:
            cur = conn.execute("DELETE FROM paper_tags WHERE paper_id = ? AND tag = ?", (paper_id, tag))
            return cur.rowcount > 0

    def tags_of(self, paper_id: str) -> list[str]:
        return [r[0] for r in self._store.query("SELECT tag FROM paper_tags WHERE paper_id = ? ORDER BY tag",
                                                (paper_id,))]

    def tags_by_paper(self) -> dict[str, list[str]]:
        """paper id -> its tags (sorted), for every tagged paper."""
        tags: dict[str, list[str]] = {}
        for pid, tag in self._store.query("SELECT paper_id, tag FROM paper_tags ORDER BY paper_id, tag"):
            tags.setdefault(pid, []).append(tag)
        return tags

    def all_tags(self) -> list[tuple[str, int]]:
        """(tag, number of papers), most used first."""
        rows = self._store.query("SELECT tag, COUNT(*) FROM paper_tags GROUP BY tag ORDER BY COUNT(*) DESC, tag")
        return [(r[0], r[1]) for r in rows]

    # -- fields (citation key, doi) --------------------------------------------------------------

    def field(self, paper_id: str, name: str) -> str | None:
        rows = self._store.query("SELECT value FROM paper_fields WHERE paper_id = ? AND name = ?", (paper_id, name))
        return rows[0][0] if rows else None

    def fields_named(self, name: str) -> dict[str, str]:
        """paper id -> value of field `name`, for every paper that has it."""
        return {r[0]: r[1] for r in self._store.query("SELECT paper_id, value FROM paper_fields WHERE name = ?",
                                                      (name,))}

    def set_fields(self, rows: Sequence[tuple[str, str, str]]) -> None:
        """(paper id, name, value) rows in one transaction; an existing value is replaced."""
        if not rows:
            return
        with self._store.transaction() as conn:
            conn.executemany("INSERT OR REPLACE INTO paper_fields (paper_id, name, value) VALUES (?, ?, ?)", rows)

    def pin_missing(self, name: str, values: dict[str, str]) -> None:
        """Store `values` (paper id -> value) where the paper has no `name` yet: the first one stays."""
        if not values:
            return
        with self._store.transaction() as conn:
            conn.executemany("INSERT OR IGNORE INTO paper_fields (paper_id, name, value) VALUES (?, ?, ?)",
                             [(pid, name, value) for pid, value in values.items()])
