"""The crash probe: a child that dies on a real signal is a crash verdict, cached per build, shown as one line.

The children here are real processes that really die (SIGSEGV sent to
themselves) or exit with an error; the real-model probe is covered by the
`llama_probe` session fixture and tests/integration/test_crash_probe_faces.py.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from paperdesk.core.llm.local import LocalBackend
from paperdesk.core.llm.probe import (ModelCrashError, Verdict, build_key, cached_verdict, ensure_model_runs,
                                      run_probe, store_verdict)

SEGFAULT = [sys.executable, "-c", "import os, signal; os.kill(os.getpid(), signal.SIGSEGV)"]
FAILS = [sys.executable, "-c", "import sys; sys.exit('cannot load model: bad magic')"]


@pytest.fixture
def cache(tmp_path, monkeypatch) -> Path:
    """The user cache dir (platformdirs reads XDG_CACHE_HOME) moved into tmp."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    return tmp_path / "xdg" / "paperdesk" / "probe"


@pytest.fixture
def model(tmp_path) -> Path:
    path = tmp_path / "m.gguf"
    path.write_bytes(b"GGUF stand-in: the cached verdict is found before any load")
    return path


def test_a_child_killed_by_a_signal_is_a_crash_named_in_one_line(model):
    verdict = run_probe(model, command=SEGFAULT)
    assert verdict.crashed and verdict.signal == "SIGSEGV"
    message = verdict.message()
    assert "\n" not in message
    assert message.startswith("llama.cpp (llama-cpp-python ")
    assert "crashed with SIGSEGV" in message and "AMX" in message
    assert "make clean-venv && make test" in message and "When something goes wrong" in message


def test_a_child_that_fails_without_a_signal_is_not_a_crash_and_not_cached(model, cache):
    verdict = run_probe(model, command=FAILS)
    assert verdict.status == "failed" and not verdict.crashed
    assert "bad magic" in verdict.detail
    store_verdict(model, verdict)
    assert cached_verdict(model) is None  # a passing failure must not stick


def test_crash_verdict_is_cached_and_the_backend_raises_it_instead_of_loading(model, cache):
    store_verdict(model, run_probe(model, command=SEGFAULT))
    assert (cache / f"{build_key(model)}.json").is_file()
    with pytest.raises(ModelCrashError, match="crashed with SIGSEGV.*make clean-venv && make test"):
        LocalBackend(model).llama()
    # The verdict belongs to this build and model: a changed model file probes again.
    model.write_bytes(b"another model, another size")
    assert cached_verdict(model) is None


def test_ok_verdict_is_cached_and_not_probed_again(model, cache, monkeypatch):
    store_verdict(model, Verdict("ok", tokens=4, seconds=0.5, library="x"))
    import paperdesk.core.llm.probe as probe

    def no_probe(*_a, **_k):
        raise AssertionError("the probe ran although its verdict was cached")

    monkeypatch.setattr(probe, "run_probe", no_probe)
    assert ensure_model_runs(model).tokens_per_s == 8.0


def test_the_backend_the_faces_use_raises_the_crash_line(model, cache, tmp_home, monkeypatch):
    from paperdesk.core.config import load_settings
    from paperdesk.core.errors import PaperdeskError
    from paperdesk.core.llm.factory import make_backend

    monkeypatch.setenv("PAPERDESK_LLM_MODEL_PATH", str(model))
    store_verdict(model, run_probe(model, command=SEGFAULT))
    with pytest.raises(PaperdeskError, match="crashed with SIGSEGV"):  # what CLI, shell and TUI print as one line
        make_backend(load_settings()).llama()
