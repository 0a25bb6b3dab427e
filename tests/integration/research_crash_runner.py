"""Runs a 3-step research plan whose steps are slow stand-in tools, so a test can kill -9 it mid-run.

Usage: python research_crash_runner.py DB_PATH  (prints the run id, then works until killed)
The tracker is the real one; the tools only sleep and return structured results.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

from paperdesk.core.research.engine import Executor
from paperdesk.core.research.plan import Plan, Step
from paperdesk.core.research.tools import ToolContext
from paperdesk.core.research.tracker import Tracker

DELAY = 0.6


def plan() -> Plan:
    return Plan("q", [
        Step(1, "search", "library_search", {"query": "a"}, "found"),
        Step(2, "search", "library_search", {"query": "b"}, "more"),
        Step(3, "answer", "answer", {"question": "q?", "inputs": ["found", "more"]}, "ans"),
    ])


def slow_tool(name: str, log: Path | None = None):
    def run(ctx, params, inputs):
        if log is not None:
            with log.open("a") as f:
                f.write(f"{name} {params.get('query', params.get('question'))}\n")
        end = time.monotonic() + DELAY
        while time.monotonic() < end:
            time.sleep(0.01)
        return {"passages": [{"paper_id": "p", "chunk_id": 1, "page": 1}], "question": params.get("question")}
    return run


def tools(log: Path | None = None):
    return {n: slow_tool(n, log) for n in ("library_search", "answer")}


def executor(tracker: Tracker, log: Path | None = None) -> Executor:
    return Executor(tracker, lambda token: ToolContext(None, None, {"offline": True}, token), tools=tools(log))


if __name__ == "__main__":
    tracker = Tracker(Path(sys.argv[1]))
    p = plan()
    run_id = tracker.new_run(p)
    print(run_id, flush=True)
    executor(tracker, Path(sys.argv[2])).execute(run_id, p)
    tracker.set_run_status(run_id, "COMPLETED")
