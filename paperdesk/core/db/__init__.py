"""The library's SQLite file: the catalogue store, per-owner schema migrations, drafts, the desk's session and
history, paper metadata, connections of other owners, the writer lock, PDF paths and full-disk errors."""
