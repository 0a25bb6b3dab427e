"""The default writer for tests that need a real instruct model, and a short chat opening on invented notes."""

from __future__ import annotations

from pathlib import Path

import pytest

from paperdesk.core.llm import catalogue
from settings_for import settings_for

WRITER = "qwen2.5-coder-1.5b"
OPENING = [
    {"role": "system", "content": "You answer questions about short notes in one sentence, citing [n]."},
    {"role": "user", "content": "[1] The pond froze on 3 January.\n\nQuestion: When did the pond freeze?"},
    {"role": "assistant", "content": "It froze on 3 January [1]."},
]


def writer_path(home: Path) -> Path:
    """The installed writer's GGUF; the test fails with the command that installs it when it is missing."""
    path = catalogue.installed_path(catalogue.BY_NAME[WRITER], settings_for(home))
    if path is None:
        pytest.fail(f"{WRITER} is not installed: run `make test` or `paperdesk models install {WRITER}`")
    return path
