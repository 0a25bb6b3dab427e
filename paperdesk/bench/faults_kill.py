"""Fault trials with real processes: kill -9 at random points, and two writers at once.

Each trial ends with the same check: the library opens, PRAGMA integrity_check
is ok, chunks = keyword docs = vectors by id, no stray files, and every paper
whose add had returned is still there ("lost" counts those that are not).
"""

from __future__ import annotations

import os
import queue
import random
import signal
import subprocess
import sys
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

from paperdesk.core.config import Settings


@dataclass
class Tally:
    """Tries, clean outcomes and lost papers for one class of fault."""

    name: str
    tries: int = 0
    clean: int = 0
    lost: int = 0
    problems: list[str] = field(default_factory=list)

    def record(self, problems: list[str], lost: int = 0) -> None:
        self.tries += 1
        self.lost += lost
        if problems or lost:
            self.problems.append("; ".join(problems) or f"{lost} lost")
        else:
            self.clean += 1


def check_home(settings: Settings, embedder, expected: set[str]) -> tuple[list[str], set[str], set[str]]:
    """Open the library as a new process would; (problems, lost paper ids, present paper ids)."""
    from paperdesk.core.library.library import Library

    try:
        library = Library(settings, embedder=embedder)
    except Exception as exc:  # noqa: BLE001 - the point is to count it
        return [f"library does not open: {type(exc).__name__}: {exc}"], set(expected), set()
    try:
        present = {p.id for p in library.store.list_papers()}
        problems = library.integrity_problems()
        if present:
            library.search("citations reading", k=3, mode="keyword")
        return problems, expected - present, present
    finally:
        library.close()


class Zygote:
    """The fault_worker process: forks writers on request; its stdout lines arrive on a queue."""

    def __init__(self, home: Path, sources: list[Path]) -> None:
        env = {**os.environ, "PAPERDESK_HOME": str(home), "PYTHONUNBUFFERED": "1", "TOKENIZERS_PARALLELISM": "false"}
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "paperdesk.bench.fault_worker", *map(str, sources)],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, env=env,
        )
        self.lines: "queue.Queue[str]" = queue.Queue()
        threading.Thread(target=self._pump, daemon=True).start()
        self.expect("zygote ready", 180)

    def _pump(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            self.lines.put(line.strip())
        self.lines.put("<eof>")

    def expect(self, prefix: str, timeout: float, seen: list[str] | None = None) -> str:
        deadline = time.monotonic() + timeout
        while True:
            try:
                line = self.lines.get(timeout=max(0.01, deadline - time.monotonic()))
            except queue.Empty:
                raise TimeoutError(f"fault worker: no {prefix!r} within {timeout:g}s") from None
            if seen is not None:
                seen.append(line)
            if line.startswith(prefix):
                return line
            if line == "<eof>" or line.startswith("child error"):
                raise RuntimeError(f"fault worker: {line}")

    def drain(self) -> list[str]:
        out = []
        while True:
            try:
                out.append(self.lines.get_nowait())
            except queue.Empty:
                return out

    def send(self, text: str) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(text + "\n")
        self.proc.stdin.flush()

    def go(self, op: str, seed: int) -> int:
        self.send(f"go {op} {seed}")
        return int(self.expect("child ", 30).split()[1])

    def reap(self, *pids: int, seen: list[str] | None = None) -> None:
        """Wait until `pids` have exited (kill -9 is not instant); the lines before "reaped" go to `seen`."""
        self.send(" ".join(["reap", *map(str, pids)]))
        self.expect("reaped", 30, seen)

    def close(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
        self.proc.wait()


def _ids(lines: list[str], word: str) -> set[str]:
    return {line.split()[1] for line in lines if line.startswith(word + " ") and len(line.split()) > 1}


def kill_trials(zygote: Zygote, settings: Settings, embedder, op: str, kills: int, rng: random.Random,
                max_delay: float, tally: Tally) -> None:
    """Fork a writer doing `op`, kill -9 it after a random delay, check the library; `kills` times."""
    expected = check_home(settings, embedder, set())[2]
    for _ in range(kills):
        pid = zygote.go(op, rng.randrange(1 << 30))
        seen: list[str] = []
        zygote.expect("ready", 120, seen)
        time.sleep(rng.uniform(0.0, max_delay))
        os.kill(pid, signal.SIGKILL)
        # Check only once the writer is gone: until it has exited it still holds the writer lock,
        # so a check would open read-only and count its unfinished add as a problem (or as present).
        zygote.reap(pid, seen=seen)
        seen += zygote.drain()
        errors = [line for line in seen if line.startswith("child error")]
        expected |= _ids(seen, "added")
        expected -= _ids(seen, "removing")  # a removal cut short may or may not have committed
        problems, lost, present = check_home(settings, embedder, expected)
        tally.record(problems + errors, len(lost))
        expected = present


def concurrent_trials(zygote: Zygote, settings: Settings, embedder, trials: int, rng: random.Random,
                      tally: Tally, same_paper: bool = False) -> None:
    """Two writer processes add at the same moment (different papers, or the same one); both must land."""
    for _ in range(trials):
        seeds = [rng.randrange(1 << 30)] * 2 if same_paper else [rng.randrange(1 << 30), rng.randrange(1 << 30)]
        seen: list[str] = []
        for seed in seeds:
            zygote.go("once", seed)
        done = 0
        deadline = time.monotonic() + 240
        while done < 2 and time.monotonic() < deadline:
            line = zygote.expect("", max(1.0, deadline - time.monotonic()), seen)
            done += line.startswith(("added", "child error"))
        zygote.reap(seen=seen)
        errors = [line for line in seen if line.startswith("child error")]
        added = _ids(seen, "added")
        problems, lost, _present = check_home(settings, embedder, added)
        tally.record(problems + errors, len(lost))
