"""Start-up timings for `paperdesk bench startup`: written only when the benchmark asks for them.

The benchmark sets PAPERDESK_STARTUP_PROBE (a file) and PAPERDESK_STARTUP_T0
(the wall-clock time just before it started the process); each mark appends
`name seconds-since-T0`. After models_ready the app exits.
"""

from __future__ import annotations

import os
import time

_ENV_FILE = "PAPERDESK_STARTUP_PROBE"
_ENV_T0 = "PAPERDESK_STARTUP_T0"
FINAL_MARK = "models_ready"


def mark(name: str) -> None:
    path = os.environ.get(_ENV_FILE)
    if not path:
        return
    elapsed = time.time() - float(os.environ.get(_ENV_T0, "0") or 0)
    with open(path, "a", encoding="utf-8") as fh:
        fh.write(f"{name} {elapsed:.4f}\n")
    if name == FINAL_MARK:
        from textual import active_app

        app = active_app.get(None)
        if app is not None:
            app.exit()
