"""Start the TUI; kept apart so `paperdesk --help` never imports Textual."""

from __future__ import annotations

from paperdesk.config import Settings


def run_tui(settings: Settings) -> int:
    from paperdesk.tui.app import PaperDeskApp

    PaperDeskApp(settings).run()
    return 0
