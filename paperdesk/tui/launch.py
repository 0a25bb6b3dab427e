"""Start the TUI; kept apart so `paperdesk --help` never imports Textual."""

from __future__ import annotations

import sys
from typing import TextIO

from paperdesk.core.config import Settings


def run_tui(settings: Settings, err: TextIO | None = None) -> int:
    from paperdesk.tui.app import PaperDeskApp

    app = PaperDeskApp(settings)
    app.run()
    say_unsaved_notes(app.desk, err or sys.stderr)
    return 0


def say_unsaved_notes(desk, err: TextIO) -> None:  # type: ignore[no-untyped-def]
    """Notes a full disk kept from being written even at quit: printed once the screen is back, not lost."""
    for paper_id, text in (desk.unsaved_notes if desk is not None else {}).items():
        err.write(f"the disk is still full: the notes of {paper_id} could not be saved; here they are:\n"
                  f"{text}\n--- end of the notes of {paper_id}\n")
    err.flush()
