"""A small paper outline (CiteSee-like sections and terms) for discussion unit tests that need no PDF."""

from paperdesk.core.discussion.outline import Outline, Section, Term


def citesee_outline() -> Outline:
    return Outline("p1", "CiteSee: Augmenting Citations", [
        Section("1 Introduction", "Introduction", (1, 2), [1], "section"),
        Section("4 System Design", "System Design", (5, 6), [2], "method"),
        Section("7 Limitations and Future Work", "Limitations and Future Work", (13, 14), [3], "critique"),
    ], [Term("inline citations", 90, "Inline citations are a key resource for discovering papers.", 1),
        Term("reading history", 40, "", 3)])
