"""How many cores this process may use: its CPU affinity, never the machine's other processes' recent load."""

from __future__ import annotations

import os


def usable_cores() -> int:
    """The cores this process may run on (its affinity mask), else the machine's count."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):  # no affinity on this platform
        return max(1, os.cpu_count() or 1)
