"""Loading a model on a background thread leaves the process's stdout and stderr where they are.

The TUI paints, and `paperdesk ask` prints its stage notes and streamed answer, while the writer loads
beside them; whatever they write during the load must reach the terminal, not /dev/null."""

import os
import sys
import threading
import time

import pytest

from paperdesk.core.llm.local import LocalBackend
from paperdesk.core.llm.models import default_model

pytestmark = pytest.mark.slow


def _where(fd: int) -> tuple[int, int]:
    status = os.fstat(fd)
    return status.st_dev, status.st_ino


def test_a_load_on_another_thread_never_moves_stdout_or_stderr(capfd):
    streams, files = (sys.stdout, sys.stderr), (_where(1), _where(2))
    moved, polls = [], 0
    load = threading.Thread(target=LocalBackend(default_model(), n_ctx=256, probe=False).warm_up)
    load.start()
    while load.is_alive():
        polls += 1
        if (sys.stdout, sys.stderr) != streams or (_where(1), _where(2)) != files:
            moved.append(polls)
        print("frame", flush=True)  # what the TUI or the CLI writes meanwhile
        time.sleep(0.0005)
    load.join()
    out, err = capfd.readouterr()
    assert polls > 1 and not moved
    assert out.count("frame") == polls  # every write arrived
    assert err == ""  # llama.cpp's load notes go to logging, not the terminal
