"""Source, tests and the README speak of the product: no tracker numbers ("issue 14") or design-document
numbers ("seed 004") that a reader of the code does not have."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
TRACKER = re.compile(r"\b[Ii]ssue \d+\b|\b[Ss]eed 0\d\d\b|\b(?:plan14|tui13[ab]?|dispatch15|discuss16)\b")


def _files():
    for top in ("paperdesk", "tests", "bench", "docs"):
        for path in sorted((ROOT / top).rglob("*")):
            if path.suffix in {".py", ".md", ".tcss", ".toml", ".sh", ".txt"} and path.is_file():
                yield path
    yield ROOT / "README.md"


def test_no_tracker_or_design_document_numbers():
    found = []
    for path in _files():
        if path == Path(__file__).resolve():
            continue
        for n, line in enumerate(path.read_text(encoding="utf-8", errors="replace").splitlines(), start=1):
            if TRACKER.search(line):
                found.append(f"{path.relative_to(ROOT)}:{n}: {line.strip()[:100]}")
    assert not found, "say what the thing is instead:\n" + "\n".join(found)
