"""Pane: a pane whose worker failures reach the user.

Textual posts `Worker.StateChanged` to the widget that started the worker and
does not bubble it, so the app never hears of a pane worker that raised. Each
pane turns such a failure into a `WorkerFailed` message, which does bubble,
and the app shows it as a one-line error.
"""

from __future__ import annotations

from textual.containers import Vertical
from textual.worker import Worker, WorkerState

from paperdesk.tui.messages import WorkerFailed


class Pane(Vertical):
    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        if event.state is WorkerState.ERROR:
            self.post_message(WorkerFailed(self.id or type(self).__name__, event.worker.name,
                                           str(event.worker.error)))
