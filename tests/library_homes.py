"""A data dir with a fixture paper indexed once per module, copied fresh for each test.

Indexing runs the real embedder; copying the finished home is much cheaper than indexing again.
"""

from __future__ import annotations

import shutil
from pathlib import Path

from fake_llm import FakeLLM
from settings_for import settings_for


def indexed_home(tmp_path_factory, embedder, pdf: Path, name: str) -> Path:  # type: ignore[no-untyped-def]
    """A PAPERDESK_HOME whose library holds `pdf` (indexing needs no model: the stand-in is never asked)."""
    from paperdesk.core.desk.desk import Desk

    home = tmp_path_factory.mktemp(name) / "home"
    desk = Desk(settings_for(home), backend=FakeLLM(), embedder=embedder)
    desk.library.add_pdf(pdf)
    desk.close()
    return home


def copy_home(base: Path, tmp_path: Path) -> Path:
    """A private copy of `base` for one test."""
    target = tmp_path / "home"
    shutil.copytree(base, target)
    return target
