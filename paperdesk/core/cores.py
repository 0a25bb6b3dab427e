"""How many cores this process may use: its CPU affinity, never the machine's other processes' recent load."""

from __future__ import annotations

import os


def usable_cores() -> int:
    """The cores this process may run on (its affinity mask), else the machine's count."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):  # no affinity on this platform
        return max(1, os.cpu_count() or 1)


MODEL_NICE = 10  # the model's threads yield to the UI thread (nice 0) whenever it has a key to handle


def yield_to_ui() -> bool:
    """Lower the calling thread's CPU priority to MODEL_NICE (Linux: nice is per thread, and the threads
    llama.cpp starts from it inherit it). Generation keeps every core while the UI is idle, and a typed key
    is handled at once instead of waiting behind the model's threads. False where it cannot be done."""
    if not hasattr(os, "setpriority") or not hasattr(os, "PRIO_PROCESS"):
        return False
    import threading

    try:
        tid = threading.get_native_id()
        current = os.getpriority(os.PRIO_PROCESS, tid)
        if current < MODEL_NICE:
            os.setpriority(os.PRIO_PROCESS, tid, MODEL_NICE)
        return True
    except OSError:
        return False
