"""The crash probe with the real GGUF, and what the CLI shows when the probe says llama.cpp crashes."""

from __future__ import annotations

import sys

import pytest

from paperdesk.core.llm.probe import PROBE_TOKENS, cached_verdict, run_probe, store_verdict

SEGFAULT = [sys.executable, "-c", "import os, signal; os.kill(os.getpid(), signal.SIGSEGV)"]


@pytest.mark.slow
def test_the_real_model_passes_the_probe_and_the_verdict_is_cached(llama_probe):
    from paperdesk.core.llm.models import default_model

    assert llama_probe.status == "ok" and llama_probe.tokens == PROBE_TOKENS and llama_probe.seconds > 0
    cached = cached_verdict(default_model())  # so the app's first load does not probe again
    assert cached is not None and cached.status == "ok"  # (doctor may have stored its own 16-token run since)


@pytest.mark.slow
def test_summarize_prints_the_crash_line_instead_of_dying(tmp_path, tmp_home, embedder, citesee_pdf, monkeypatch,
                                                          capsys):
    from paperdesk.cli import main

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))  # a private verdict cache
    from paperdesk.core.llm.models import default_model

    model = tmp_path / "crashing.gguf"  # a real GGUF (its header is read for the chat template) whose run crashes
    model.symlink_to(default_model())
    monkeypatch.setenv("PAPERDESK_LLM_MODEL_PATH", str(model))
    store_verdict(model, run_probe(model, command=SEGFAULT))
    code = main(["summarize", str(citesee_pdf)])
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 1
    assert err[-1].startswith("error: llama.cpp (llama-cpp-python ") and "crashed with SIGSEGV" in err[-1]
    assert "make clean-venv && make test" in err[-1]


PLUGIN = '''
"""Loaded with -p: the session's probe child dies on a real SIGSEGV, as on a machine with broken AMX."""
import os
import sys
from pathlib import Path

import paperdesk.core.llm.models as models
import paperdesk.core.llm.probe as probe

_real = probe.run_probe
models.default_model = lambda cache_dir=None: Path(os.environ["REAL_MODEL"])
probe.run_probe = lambda model, tokens=4, timeout=180, command=None: _real(
    model, tokens, timeout, command=[sys.executable, "-c", "import os, signal; os.kill(os.getpid(), signal.SIGSEGV)"])
'''


def test_pytest_stops_at_once_with_one_line_when_the_probe_crashes(tmp_path):
    import os
    import subprocess
    from pathlib import Path

    from paperdesk.core.llm.models import default_model

    root = Path(__file__).resolve().parents[2]
    (tmp_path / "crashing_probe.py").write_text(PLUGIN)
    env = {**os.environ, "REAL_MODEL": str(default_model()), "XDG_CACHE_HOME": str(tmp_path / "xdg"),
           "PYTHONPATH": os.pathsep.join([str(tmp_path), str(root), os.environ.get("PYTHONPATH", "")])}
    out = subprocess.run([sys.executable, "-m", "pytest", "-p", "crashing_probe", "-q", "-p", "no:cacheprovider",
                          "tests/integration/test_backends.py"], cwd=root, env=env, capture_output=True, text=True,
                         timeout=300)
    text = out.stdout + out.stderr
    assert out.returncode == 1, text
    assert "passed" not in text and "failed" not in text  # stopped before the first real-model test ran
    line = next(line for line in text.splitlines() if "crashed with SIGSEGV" in line)
    assert "llama.cpp (llama-cpp-python " in line and "AMX" in line and "make clean-venv && make test" in line
