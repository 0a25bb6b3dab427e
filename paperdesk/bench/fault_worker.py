"""A zygote for kill -9 trials: loads the embedder once, then forks one writer per trial.

Loading all-MiniLM takes seconds; a fork takes milliseconds, so a CI-sized run
can afford 20+ kills. Torch runs single-threaded here, so no thread pool is
alive at fork time (forking a process with OpenMP workers can hang the child).

Protocol (stdin -> stdout), PAPERDESK_HOME names the library:
  go OP SEED   fork a child that repeats OP ("add", "summarize" or "research")
               until killed ("once": one add, then exit; equal seeds add the same bytes); prints "child PID", then the child prints
               "ready", "added ID", "removing ID", "removed ID", "wrote ID" as it goes
  reap [PID..] wait until each PID has exited (a SIGKILLed writer still holds the writer lock and may
               still be finishing a write until then), collect other dead children; prints "reaped N"
Run: python -m paperdesk.bench.fault_worker PDF [PDF ...]
"""

from __future__ import annotations

import os
import random
import sys
from pathlib import Path


def _say(text: str) -> None:
    sys.stdout.write(text + "\n")
    sys.stdout.flush()


def _child(op: str, seed: int, sources: list[Path], embedder) -> None:
    from paperdesk.core.config import load_settings
    from paperdesk.core.library.library import Library

    settings = load_settings()
    library = Library(settings, embedder=embedder)
    rng = random.Random(seed)
    work = settings.home / "incoming"
    work.mkdir(exist_ok=True)
    backend = None
    if op in ("summarize", "research"):
        from paperdesk.core.llm.local import LocalBackend
        from paperdesk.core.llm.models import resolve_model

        backend = LocalBackend(resolve_model(settings).path, n_ctx=1024, n_threads=1)
        backend.llama()
    _say("ready")
    n = 0
    while True:
        n += 1
        if op in ("add", "once") or not library.store.count_papers():
            source = rng.choice(sources)
            copy = work / f"copy-{os.getpid()}-{n}.pdf"
            copy.write_bytes(source.read_bytes() + f"\n%copy {seed} {n}\n".encode())  # new bytes, new id
            result = library.add_pdf(copy)
            copy.unlink()
            _say(f"added {result.paper.id} {'created' if result.created else 'existing'}")
            if op == "once":
                return
            paper = result.paper
            if rng.random() < 0.35:
                _say(f"removing {paper.id}")
                library.remove(paper.id)
                _say(f"removed {paper.id}")
        elif op == "summarize":
            from paperdesk.core.agents.summarizer import Summarizer

            paper = rng.choice(library.store.list_papers())
            Summarizer(library.store, backend, section_tokens=12, map_tokens=12).summarize(paper.id)
            _say(f"wrote {paper.id}")
        else:
            from paperdesk.core.desk.desk import Desk

            desk = Desk(settings, library=library, backend=backend)
            outcome = desk.run("research how do readers use citations")
            _say(f"wrote research {outcome.status}")


def _die_with_parent() -> None:
    # A writer must not outlive the trial run (pytest killed, Ctrl-C): PR_SET_PDEATHSIG = SIGKILL.
    try:
        import ctypes
        import signal

        ctypes.CDLL(None).prctl(1, signal.SIGKILL)
    except (OSError, AttributeError):
        pass


def main() -> None:
    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
    import torch

    from paperdesk.core.search.embedder import Embedder

    torch.set_num_threads(1)
    sources = [Path(p) for p in sys.argv[1:]]
    embedder = Embedder()
    embedder.encode(["warm up"])
    _say("zygote ready")
    for line in sys.stdin:
        parts = line.split()
        if parts[:1] == ["go"]:
            pid = os.fork()
            if pid == 0:
                _die_with_parent()
                code = 0
                try:
                    _child(parts[1], int(parts[2]), sources, embedder)
                except BaseException as exc:  # noqa: BLE001 - report, then leave without running atexit
                    _say(f"child error {type(exc).__name__}: {exc}")
                    code = 1
                os._exit(code)
            _say(f"child {pid}")
        elif parts[:1] == ["reap"]:
            count = 0
            for pid in map(int, parts[1:]):  # a killed writer holds the lock until it has exited: wait for that
                try:
                    os.waitpid(pid, 0)
                    count += 1
                except ChildProcessError:
                    pass
            while True:
                try:
                    done, _status = os.waitpid(-1, os.WNOHANG)
                except ChildProcessError:
                    break
                if done == 0:
                    break
                count += 1
            _say(f"reaped {count}")


if __name__ == "__main__":
    main()
