"""llama.cpp's threads follow the cores this process may use (its affinity), for generation and prompt batches."""

import os
from pathlib import Path

import pytest

from paperdesk.core import cores
from paperdesk.core.llm import local


def test_all_cores_means_the_cores_of_this_process_not_of_the_machine(monkeypatch):
    monkeypatch.setattr(local, "usable_cores", cores.usable_cores)  # the suite pins one thread; undo that here
    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: {3}, raising=False)
    monkeypatch.setattr(os, "cpu_count", lambda: 64)
    assert local.LocalBackend(Path("absent.gguf"), n_threads=0).n_threads == 1
    assert local.LocalBackend(Path("absent.gguf"), n_threads=6).n_threads == 6


@pytest.mark.slow
def test_prompt_batches_use_the_same_threads_as_generation():
    from paperdesk.core.llm.models import default_model

    llama = local.LocalBackend(default_model(), n_ctx=256, n_threads=1).llama()
    assert (llama.n_threads, llama.n_threads_batch) == (1, 1)  # llama.cpp alone would batch on every core
