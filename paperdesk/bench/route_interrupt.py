"""Part of `paperdesk bench route`: how fast a message stops a running generation.

A real generation with the default GGUF streams in a worker; after a few
tokens a message arrives and goes through what `Talk.submit` does while busy:
the dispatcher decides (rules + MiniLM exemplars), the decision needs the desk,
so the running call's token is cancelled. Measured: message arrival -> the
generation call has returned (decision + cancel + the stream ending), next to
a bare `cancel()` -> returned on the same model in the same run.
"""

from __future__ import annotations

import statistics
import threading
import time
from typing import Any

from paperdesk.core.cancel import CancelToken
from paperdesk.core.dispatch.types import DispatchContext

PROMPT = ("Summary of a paper on citation reading tools. The tool highlights citations the reader has seen "
          "before and shows where they were cited. Problem:")
MESSAGE = "focus on the evaluation"
AFTER_TOKENS = 3


def _one(backend: Any, decide: Any) -> float:
    from paperdesk.core.llm.backend import GenerationRequest, generate

    token, started, done = CancelToken(), threading.Event(), threading.Event()
    count = [0]

    def on_token(_text: str) -> None:
        count[0] += 1
        if count[0] >= AFTER_TOKENS:
            started.set()

    def work() -> None:
        try:
            generate(backend, GenerationRequest(prompt=PROMPT, max_tokens=200), on_token=on_token, cancel=token)
        finally:
            done.set()

    threading.Thread(target=work, daemon=True).start()
    started.wait(60)
    arrived = time.perf_counter()
    if decide is not None:
        decide()
    token.cancel()
    done.wait(60)
    return (time.perf_counter() - arrived) * 1000


def measure(dispatcher: Any, settings: Any, repeats: int = 5) -> tuple[dict[str, Any], list[str]]:
    """{"message_ms": {p50, p95}, "cancel_ms": {...}} and printed lines; a note when no model loads."""
    try:
        from paperdesk.core.llm.factory import make_backend

        backend = make_backend(settings)
        backend.warm_up()
    except Exception as exc:  # noqa: BLE001 - the routing figures stand without it
        return {"skipped": str(exc)}, [f"\ninterrupt: skipped, no generation model ({exc})"]
    ctx = DispatchContext(state="draft-summary", draft_kind="summary")
    _one(backend, None)  # the first generation after the load pays for warming the model's caches
    message, bare = [], []
    for _ in range(repeats):  # alternated, so both see the same machine load
        message.append(_one(backend, lambda: dispatcher.decide(MESSAGE, ctx)))
        bare.append(_one(backend, None))

    def stats(xs: list[float]) -> dict[str, float]:
        return {"p50_ms": round(statistics.median(xs), 2), "max_ms": round(max(xs), 2)}

    report = {"message_ms": stats(message), "cancel_ms": stats(bare), "runs": repeats,
              "decision": dispatcher.decide(MESSAGE, ctx).line()}
    lines = [f"\ninterrupt ({repeats} runs, goal <= 100 ms): message '{MESSAGE}' during a generation -> "
             f"{report['decision']}",
             f"  message arrives -> model call stopped: p50 {report['message_ms']['p50_ms']:.1f} ms   "
             f"max {report['message_ms']['max_ms']:.1f} ms",
             f"  bare cancel() -> model call stopped (same model, same run): p50 {report['cancel_ms']['p50_ms']:.1f} ms"
             f"   max {report['cancel_ms']['max_ms']:.1f} ms"]
    return report, lines
