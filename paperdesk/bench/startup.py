"""`paperdesk bench startup`: time to the first painted screen and to models ready, in a real terminal.

Each run starts a fresh Python process on a pseudo-terminal (as a user's
terminal would) and reads the app's own marks (first_paint, desk_ready,
models_ready) relative to just before the process was spawned. In the same
run, two baselines do the same work with the raw libraries: a bare Textual app
(first paint) and a bare script that loads the same embedding and GGUF models
(models ready). Runs are interleaved so machine noise hits all of them alike.
"""

from __future__ import annotations

import argparse
import os
import pty
import statistics
import struct
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

from paperdesk.bench.common import emit, note
from paperdesk.core.config import Settings

BARE_TEXTUAL = """
import os, time
from textual.app import App
from textual.widgets import Footer, Static
def mark(name):
    with open(os.environ["PAPERDESK_STARTUP_PROBE"], "a") as fh:
        fh.write(f"{name} {time.time() - float(os.environ['PAPERDESK_STARTUP_T0']):.4f}\\n")
class Bare(App):
    def compose(self):
        yield Static("hello")
        yield Footer()
    def on_mount(self):
        self.call_after_refresh(self.painted)
    def painted(self):
        mark("first_paint")
        self.exit()
Bare().run()
"""

BARE_MODELS = """
import os, sys, time
os.environ.setdefault("HF_HUB_OFFLINE", "1")
if sys.argv[4]:  # the ONNX export paperdesk uses: onnxruntime + tokenizers, as the app does
    import onnxruntime, tokenizers
    tokenizers.Tokenizer.from_file(os.path.join(sys.argv[4], "tokenizer.json"))
    onnxruntime.InferenceSession(os.path.join(sys.argv[4], "model-int8.onnx"), providers=["CPUExecutionProvider"])
else:
    from sentence_transformers import SentenceTransformer
    SentenceTransformer(sys.argv[1], device="cpu", local_files_only=True)
from llama_cpp import Llama
Llama(model_path=sys.argv[2], n_ctx=int(sys.argv[3]), verbose=False)
with open(os.environ["PAPERDESK_STARTUP_PROBE"], "a") as fh:
    fh.write(f"models_ready {time.time() - float(os.environ['PAPERDESK_STARTUP_T0']):.4f}\\n")
"""


def _run(argv: list[str], env: dict[str, str], wanted: str, timeout: float, rows: int = 36,
         cols: int = 120) -> dict[str, float]:
    """Start argv on a pty and return its probe marks once `wanted` is written (or the process ends)."""
    import fcntl
    import termios

    with tempfile.TemporaryDirectory() as tmp:
        probe = Path(tmp) / "probe"
        master, slave = pty.openpty()
        fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", rows, cols, 0, 0))
        env = {**env, "PAPERDESK_STARTUP_PROBE": str(probe), "TERM": env.get("TERM", "xterm-256color")}
        env["PAPERDESK_STARTUP_T0"] = repr(time.time())
        proc = subprocess.Popen(argv, stdin=slave, stdout=slave, stderr=slave, env=env, close_fds=True)
        os.close(slave)
        drain = threading.Thread(target=_drain, args=(master,), daemon=True)
        drain.start()
        deadline = time.monotonic() + timeout
        marks: dict[str, float] = {}
        while time.monotonic() < deadline:
            if probe.exists():
                marks = dict((k, float(v)) for k, v in (line.split() for line in probe.read_text().splitlines()))
            if wanted in marks or proc.poll() is not None:
                break
            time.sleep(0.02)
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        os.close(master)
        if probe.exists():
            marks = dict((k, float(v)) for k, v in (line.split() for line in probe.read_text().splitlines()))
        return marks


def _drain(fd: int) -> None:
    try:
        while os.read(fd, 65536):
            pass
    except OSError:
        pass


def run(args: argparse.Namespace, settings: Settings) -> int:
    from paperdesk.core.llm.models import resolve_model
    from paperdesk.core.search.embedder import default_model_dir

    model = resolve_model(settings).path  # assembled once here, so no run pays for it
    from paperdesk.core.search.embedder import Embedder

    embedding_dir = settings["embedding.model_path"] or str(default_model_dir())
    embedder = Embedder(Path(embedding_dir), backend=settings["embedding.backend"])
    embedder.model()  # exported once here (if it is ONNX), so no run pays for that
    onnx_dir = ""
    if embedder.backend == "onnx-int8":
        from paperdesk.core.search.onnx_export import export_dir

        onnx_dir = str(export_dir(Path(embedding_dir)))
    _compile_bytecode()
    results: dict[str, list[dict[str, float]]] = {"paperdesk": [], "textual": [], "models": []}
    with tempfile.TemporaryDirectory() as home:
        env = {**os.environ, "PAPERDESK_HOME": args.home or home}
        for i in range(args.repeats):
            note(f"run {i + 1} of {args.repeats} ...")
            results["paperdesk"].append(_run([sys.executable, "-m", "paperdesk"], env, "models_ready", args.timeout))
            results["textual"].append(_run([sys.executable, "-c", BARE_TEXTUAL], env, "first_paint", args.timeout))
            results["models"].append(_run([sys.executable, "-c", BARE_MODELS, embedding_dir, str(model),
                                           str(settings["llm.n_ctx"]), onnx_dir], env, "models_ready", args.timeout))
    figures = _figures(results)
    lines = [f"start-up, median of {args.repeats} interleaved runs on a {120}x{36} pty "
             "(seconds from process spawn; ratios against the raw libraries)"]
    lines += [f"  {name:<34} {value:8.3f}" for name, value in figures.items()]
    emit(figures, args.json, lines)
    return 0


def _compile_bytecode() -> None:
    """Write paperdesk's .pyc files first, as an installed package has them (Textual's came with its wheel);
    an editable install under PYTHONDONTWRITEBYTECODE would otherwise compile every module at each start."""
    import compileall

    import paperdesk

    compileall.compile_dir(str(Path(paperdesk.__file__).parent), quiet=1)


def _median(runs: list[dict[str, float]], mark: str) -> float:
    values = [r[mark] for r in runs if mark in r]
    return statistics.median(values) if values else float("nan")


def _figures(results: dict[str, list[dict[str, float]]]) -> dict[str, float]:
    paint = _median(results["paperdesk"], "first_paint")
    ready = _median(results["paperdesk"], "models_ready")
    bare_paint = _median(results["textual"], "first_paint")
    bare_models = _median(results["models"], "models_ready")
    return {
        "paperdesk first paint": paint,
        "paperdesk library open": _median(results["paperdesk"], "desk_ready"),
        "paperdesk models ready": ready,
        "bare Textual app first paint": bare_paint,
        "bare model loading (embedder + Llama)": bare_models,
        "first paint / bare Textual": paint / bare_paint,
        "models ready / bare loading": ready / bare_models,
        "worst paperdesk first paint": max((r.get("first_paint", float("nan")) for r in results["paperdesk"]),
                                           default=float("nan")),
    }
