"""The memory graph's tables (owner "memory" in `schema_versions`)."""

from __future__ import annotations

from paperdesk.core.db.schema import script

OWNER = "memory"
ENTITY_TYPES = ("paper", "term", "method", "dataset", "question", "person")

MIGRATIONS = [
    script(
        """
        CREATE TABLE memory_entities (
            id        INTEGER PRIMARY KEY AUTOINCREMENT,
            name      TEXT NOT NULL UNIQUE COLLATE NOCASE,
            type      TEXT NOT NULL CHECK (type IN ('paper', 'term', 'method', 'dataset', 'question', 'person')),
            created   REAL NOT NULL,
            updated   REAL NOT NULL,
            embedding BLOB
        );
        CREATE INDEX memory_entities_updated ON memory_entities(updated);
        CREATE TABLE memory_observations (
            id            INTEGER PRIMARY KEY AUTOINCREMENT,
            entity_id     INTEGER NOT NULL REFERENCES memory_entities(id) ON DELETE CASCADE,
            text          TEXT NOT NULL,
            paper_id      TEXT,
            page          INTEGER,
            discussion_id INTEGER,
            turn          INTEGER,
            created       REAL NOT NULL,
            UNIQUE (entity_id, text)
        );
        CREATE TABLE memory_relations (
            from_id INTEGER NOT NULL REFERENCES memory_entities(id) ON DELETE CASCADE,
            to_id   INTEGER NOT NULL REFERENCES memory_entities(id) ON DELETE CASCADE,
            type    TEXT NOT NULL,
            created REAL NOT NULL,
            PRIMARY KEY (from_id, to_id, type)
        );
        CREATE INDEX memory_relations_to ON memory_relations(to_id);
        CREATE VIRTUAL TABLE memory_fts USING fts5(name, body, tokenize = 'porter unicode61');
        CREATE TABLE memory_meta (key TEXT PRIMARY KEY, value INTEGER NOT NULL);
        INSERT INTO memory_meta (key, value) VALUES ('generation', 0);
        """
    ),
]
