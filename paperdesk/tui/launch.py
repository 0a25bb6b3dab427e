"""Start the TUI; kept apart so `paperdesk --help` never imports Textual."""

from __future__ import annotations

from paperdesk.core.config import Settings


def run_tui(settings: Settings) -> int:
    from paperdesk.tui.app import run_app

    return run_app(settings)
