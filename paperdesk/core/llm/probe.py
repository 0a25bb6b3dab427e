"""The crash probe: generate a few tokens in a child process before trusting llama.cpp here.

A llama.cpp build can die on a signal in its own kernels (AMX tiles the OS does
not enable, an instruction this CPU lacks): that kills the whole process with
no Python error. So before the first model load in a new environment, a child
process loads the model and generates a few tokens; if it dies on a signal, the
caller gets one clear line instead of a dead app. The verdict is cached per
library build and model (llama-cpp-python version, its shared libraries' path,
size and mtime, the model file), so the cost is paid once.

Run as `python -m paperdesk.core.llm.probe MODEL [TOKENS]` it is that child.
"""

from __future__ import annotations

import hashlib
import importlib.metadata
import importlib.util
import json
import os
import signal
import subprocess
import sys
import time
from dataclasses import asdict, dataclass
from pathlib import Path

import platformdirs

from paperdesk.core.atomic_file import write_bytes
from paperdesk.core.errors import PaperdeskError

PROBE_TOKENS = 4
PROBE_TIMEOUT = 180.0  # seconds; generous, the CPU may be shared
FIX = "make clean-venv && make test (README: When something goes wrong)"


class ModelCrashError(PaperdeskError):
    """llama.cpp died on a signal in the probe; loading the model here would kill the process."""


@dataclass
class Verdict:
    """What the probe found: "ok", "crashed" (died on a signal), "failed" (an error) or "timeout"."""

    status: str
    detail: str = ""
    signal: str = ""
    tokens: int = 0
    seconds: float = 0.0
    library: str = ""

    @property
    def crashed(self) -> bool:
        return self.status == "crashed"

    @property
    def tokens_per_s(self) -> float:
        return self.tokens / self.seconds if self.seconds > 0 else 0.0

    def message(self) -> str:
        """One line: which library crashed, the likely cause, the fix."""
        if self.crashed:
            return (f"llama.cpp ({self.library}) crashed with {self.signal} while generating a test token: "
                    f"likely AMX kernels or other CPU features the OS does not enable here; fix: {FIX}")
        if self.status == "timeout":
            return f"llama.cpp ({self.library}) did not generate {PROBE_TOKENS} tokens in {PROBE_TIMEOUT:.0f} s"
        if self.status == "failed":
            return f"llama.cpp ({self.library}) could not generate: {self.detail}"
        return f"llama.cpp ({self.library}) generated {self.tokens} tokens at {self.tokens_per_s:.1f} tokens/s"


def llama_library_files() -> list[Path]:
    """llama-cpp-python's shared libraries (without importing it: the import loads them)."""
    spec = importlib.util.find_spec("llama_cpp")
    if spec is None or not spec.submodule_search_locations:
        return []
    root = Path(list(spec.submodule_search_locations)[0])
    return sorted(p for p in (root / "lib").glob("*") if p.suffix in (".so", ".dylib", ".dll") or ".so." in p.name)


def llama_version() -> str:
    try:
        return importlib.metadata.version("llama-cpp-python")
    except importlib.metadata.PackageNotFoundError:
        return "not installed"


def library_label() -> str:
    """`llama-cpp-python 0.3.36, /path/lib/libggml-cpu.so` — what the one-line messages name."""
    files = llama_library_files()
    cpu = next((f for f in files if "ggml-cpu" in f.name), files[0] if files else None)
    return f"llama-cpp-python {llama_version()}" + (f", {cpu}" if cpu else "")


def build_key(model_path: Path) -> str:
    """Changes whenever the llama.cpp build or the model changes."""
    parts = [llama_version(), sys.executable]
    for path in [*llama_library_files(), Path(model_path)]:
        try:
            st = path.stat()
            parts.append(f"{path.resolve()}:{st.st_size}:{st.st_mtime_ns}")
        except OSError:
            parts.append(f"{path}:missing")
    return hashlib.sha256("\n".join(parts).encode()).hexdigest()[:16]


def default_cache_dir() -> Path:
    return Path(platformdirs.user_cache_dir("paperdesk")) / "probe"


def run_probe(model_path: Path, tokens: int = PROBE_TOKENS, timeout: float = PROBE_TIMEOUT,
              command: list[str] | None = None) -> Verdict:
    """Load the model and generate `tokens` tokens in a child process; never raises.

    `command` replaces the child (tests use one that kills itself with a real signal).
    """
    label = library_label()
    cmd = command or [sys.executable, "-m", "paperdesk.core.llm.probe", str(model_path), str(tokens)]
    env = dict(os.environ)
    # The child must import this paperdesk, wherever it comes from (a worktree on PYTHONPATH).
    root = str(Path(__file__).resolve().parents[3])
    env["PYTHONPATH"] = root + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    try:
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, env=env)
    except subprocess.TimeoutExpired:
        return Verdict("timeout", library=label)
    if proc.returncode < 0:
        try:
            name = signal.Signals(-proc.returncode).name
        except ValueError:
            name = f"signal {-proc.returncode}"
        return Verdict("crashed", signal=name, library=label)
    lines = [line for line in proc.stdout.splitlines() if line.startswith("{")]
    if proc.returncode != 0 or not lines:
        last = (proc.stderr.strip().splitlines() or [f"exit status {proc.returncode}"])[-1]
        return Verdict("failed", detail=last[:300], library=label)
    data = json.loads(lines[-1])
    return Verdict("ok", tokens=int(data["tokens"]), seconds=float(data["seconds"]), library=label)


def cached_verdict(model_path: Path, cache_dir: Path | None = None) -> Verdict | None:
    """The stored verdict for this build and model, if any."""
    path = (cache_dir or default_cache_dir()) / f"{build_key(model_path)}.json"
    try:
        return Verdict(**json.loads(path.read_text()))
    except (OSError, ValueError, TypeError):
        return None


def store_verdict(model_path: Path, verdict: Verdict, cache_dir: Path | None = None) -> None:
    """Keep "ok" and "crashed" (facts about the build); a failure or timeout may be passing."""
    if verdict.status not in ("ok", "crashed"):
        return
    directory = cache_dir or default_cache_dir()
    try:
        directory.mkdir(parents=True, exist_ok=True)
        path = directory / f"{build_key(model_path)}.json"
        write_bytes(path, json.dumps(asdict(verdict)).encode(), path.with_name(f"{path.name}.{os.getpid()}.tmp"),
                    exclusive=False)
    except OSError:
        pass  # an unwritable cache only means probing again next time


def ensure_model_runs(model_path: Path, cache_dir: Path | None = None) -> Verdict:
    """Probe once per build and model; raise ModelCrashError with the one-line fix on a crash.

    A probe that fails without a signal (a broken GGUF, say) is not cached and not
    raised here: the normal load reports that with its own message.
    """
    verdict = cached_verdict(model_path, cache_dir)
    if verdict is None:
        verdict = run_probe(model_path)
        store_verdict(model_path, verdict, cache_dir)
    if verdict.crashed:
        raise ModelCrashError(verdict.message())
    return verdict


def _child(model_path: str, tokens: int) -> int:
    from llama_cpp import Llama

    llama = Llama(model_path=model_path, n_ctx=256, n_batch=64, verbose=False)
    start = time.perf_counter()
    out = llama.create_completion("The capital of France is", max_tokens=tokens, temperature=0.0,
                                  logit_bias={llama.token_eos(): -100.0})
    seconds = time.perf_counter() - start
    print(json.dumps({"tokens": out["usage"]["completion_tokens"], "seconds": seconds}), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(_child(sys.argv[1], int(sys.argv[2]) if len(sys.argv) > 2 else PROBE_TOKENS))
