"""No library progress bars on the terminal: transformers draws its own "Loading weights" bar (not the
hub's) whenever a model loads through torch; it would land in doctor's output or on the TUI's screen."""

from __future__ import annotations


def quiet_transformers() -> None:
    try:
        from transformers.utils import logging as hf_logging

        hf_logging.disable_progress_bar()
    except Exception:  # noqa: BLE001 - an older or newer transformers: a bar is cosmetic
        pass
