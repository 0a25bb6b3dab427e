"""Small helpers shared by the benchmarks."""

from __future__ import annotations

import json
import statistics
import sys
import time
from typing import Any, Callable


def timed(fn: Callable[[], Any]) -> tuple[float, Any]:
    start = time.perf_counter()
    value = fn()
    return time.perf_counter() - start, value


def percentiles_ms(samples: list[float]) -> dict[str, float]:
    ordered = sorted(samples)
    p95 = ordered[min(len(ordered) - 1, int(round(0.95 * (len(ordered) - 1))))]
    return {"p50_ms": statistics.median(ordered) * 1000, "p95_ms": p95 * 1000}


def emit(report: dict[str, Any], as_json: bool, lines: list[str]) -> None:
    if as_json:
        json.dump(report, sys.stdout, indent=2)
        sys.stdout.write("\n")
    else:
        print("\n".join(lines))


def note(message: str) -> None:
    """Progress for the person waiting, on stderr so --json stays clean."""
    print(message, file=sys.stderr, flush=True)
