"""Paint the whole screen again after a model has loaded.

llama.cpp (through llama-cpp-python, with verbose off) points the process's
stdout and stderr at /dev/null while it loads a model. Every frame Textual
writes in that window is lost, yet Textual takes it as painted and later only
redraws what changes again: after a restart the restored results, the draft
and even whole panes stayed blank until a key forced a redraw. Once a load is
over, the whole screen is painted again.
"""

from __future__ import annotations

from typing import Any


def repaint_whole_screen(app: Any) -> None:
    """Mark every cell of the current screen for painting (the next frame sends all of them)."""
    if app.screen_stack:
        app.screen.refresh(repaint=True, layout=True)
