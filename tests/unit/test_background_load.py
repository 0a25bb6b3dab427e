"""The writer loads on its own thread while the command's work before its first generation goes on."""

from __future__ import annotations

import threading
import time

import pytest

from paperdesk.core.llm.background_load import loading


class SlowLoadingBackend:
    """A stand-in backend (no model) whose load waits until the caller's own work has started."""

    def __init__(self, fails: bool = False) -> None:
        self.body_started = threading.Event()
        self.loaded = threading.Event()
        self.load_thread: threading.Thread | None = None
        self.fails = fails

    def warm_up(self) -> None:
        self.load_thread = threading.current_thread()
        assert self.body_started.wait(5), "the load waited for the body, so the two did not overlap"
        time.sleep(0.05)
        if self.fails:
            raise RuntimeError("no model file")
        self.loaded.set()


def test_the_body_runs_while_the_model_loads_and_leaving_waits_for_the_load():
    backend = SlowLoadingBackend()
    with loading(backend):
        backend.body_started.set()
        assert not backend.loaded.is_set()
    assert backend.loaded.is_set()
    assert backend.load_thread is not threading.current_thread()


def test_a_failed_load_is_left_to_the_first_generation():
    backend = SlowLoadingBackend(fails=True)
    with loading(backend):
        backend.body_started.set()
    assert not backend.loaded.is_set()


def test_an_error_in_the_body_still_waits_for_the_load_and_is_raised():
    backend = SlowLoadingBackend()
    with pytest.raises(ValueError), loading(backend):
        backend.body_started.set()
        raise ValueError("bad question")
    assert backend.loaded.is_set()
