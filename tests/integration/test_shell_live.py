"""The shell's input while a command runs, in process on a real pipe: type-ahead runs in order, a read-only line
is answered beside the work, a typed command that needs the desk stops it and runs next.

Real library and embeddings; the generation comes from FakeLLM (tests/fake_llm.py, NOT a model: it streams
a fixed text and holds until stopped) because this is orchestration; the real model runs in test_shell_e2e.py.
"""

from __future__ import annotations

import io
import os
import threading
import time

import pytest

from fake_llm import FakeLLM
from paperdesk.core.desk.desk import Desk
from paperdesk.shell import run_shell
from settings_for import settings_for

pytestmark = pytest.mark.slow


class Screen(io.StringIO):
    """The shell's stdout and stderr, written from its threads and read by the test."""

    def __init__(self) -> None:
        super().__init__()
        self.lock = threading.Lock()

    def write(self, text: str) -> int:
        with self.lock:
            return super().write(text)

    def wait_for(self, text: str, timeout: float = 60) -> None:
        deadline = time.monotonic() + timeout
        while text not in self.getvalue():
            assert time.monotonic() < deadline, f"{text!r} never appeared:\n{self.getvalue()}"
            time.sleep(0.02)


@pytest.fixture
def live_shell(tmp_home, arxiv, embedder, library, citesee_pdf):
    library.add_pdf(citesee_pdf)
    library.close()
    settings = settings_for(tmp_home, arxiv.api_url)
    # the summary's first generation holds after a token until a typed command stops it: running work, at once
    desk = Desk(settings, backend=FakeLLM(" ".join(["readers"] * 400), hold_first_after=1), embedder=embedder)
    read, write = os.pipe()
    screen = Screen()
    codes: list[int] = []
    thread = threading.Thread(target=lambda: codes.append(run_shell(settings, stdin=os.fdopen(read, "r"), out=screen,
                                                                    err=screen, desk=desk)), daemon=True)
    thread.start()
    yield desk, (lambda text: os.write(write, text.encode())), screen
    os.close(write)
    thread.join(60)
    assert codes == [0], screen.getvalue()
    desk.close()


def test_type_ahead_runs_in_order_and_a_typed_command_stops_the_work(live_shell):
    desk, send, screen = live_shell
    send("list\nsummarize 1\n")  # both there at once: summarize runs after list
    screen.wait_for("## Problem")
    send("status\n")  # read-only: answered beside, the summary goes on
    screen.wait_for("dialogue: 0 messages")
    assert "interrupting" not in screen.getvalue() and desk.busy
    send("improve shorter please\n")
    screen.wait_for("[interrupting the running summary for: improve shorter please]")
    screen.wait_for("kept as interrupted")
    screen.wait_for("[summary revision 2")  # the improve ran on the kept partial summary
    out = screen.getvalue()
    assert out.index("> list") < out.index("> summarize 1") < out.index("> status") < out.index("> improve")
    assert out.count("[list: initial -> select-view]") == 1 and out.count("-> draft-summary]") == 1
    assert [r.status for r in desk.store.revisions(desk.session.selected)] == ["interrupted", "draft"]
