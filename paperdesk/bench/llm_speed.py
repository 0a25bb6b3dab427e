"""`paperdesk bench llm`: prompt and decode tokens/s, paperdesk vs raw llama_cpp.Llama.

Both load the same GGUF with the same settings, run the same prompt greedily,
and have their KV cache reset before every run so prompt processing is
measured every time. Also measures cancellation latency: from `cancel()` to
the stream having ended, on the main thread (the CLI) and on a worker thread
beside a busy Python thread (the TUI and the shell).
"""

from __future__ import annotations

import argparse
import os
import statistics
import time
from typing import Any

from paperdesk.bench.common import emit, note
from paperdesk.core.config import Settings
from paperdesk.core.cores import yield_to_ui
from paperdesk.core.cancel import CancelToken
from paperdesk.core.llm.backend import GenerationRequest, generate
from paperdesk.core.llm.local import LocalBackend
from paperdesk.core.llm.models import resolve_model

PROMPT = (
    "Abstract. Readers of scientific papers struggle to keep track of the citations they have already seen. "
    "We present a reading tool that highlights citations to papers the reader has saved or read, and shows "
    "the context in which they were cited before. In two studies with researchers we find that it helps "
    "them find relevant prior work and understand a paper's place in the literature. "
) * 4 + "\nSummary of the paper in one paragraph:"


def _rates(n_prompt: int, tokens: int, first_s: float, total_s: float) -> dict[str, float]:
    return {"prompt_tps": n_prompt / first_s, "decode_tps": (tokens - 1) / max(total_s - first_s, 1e-9)}


PREFILL_CANCEL_AT = 0.1  # seconds after the request starts: well inside the prompt's evaluation


def _stop_after_cancel(ours: LocalBackend) -> float:
    """Milliseconds from a cancel sent PREFILL_CANCEL_AT into a request (inside the prompt) to its end."""
    import threading

    token, stamp = CancelToken(), {}

    def fire() -> None:
        time.sleep(PREFILL_CANCEL_AT)
        stamp["t"] = time.perf_counter()
        token.cancel()

    ours.llama().reset()
    threading.Thread(target=fire, daemon=True).start()
    result = generate(ours, GenerationRequest(prompt=PROMPT, max_tokens=64), cancel=token)
    assert result.cancelled
    return (time.perf_counter() - stamp["t"]) * 1000


def _prefill_cancel(ours: LocalBackend, raw: Any, repeats: int) -> dict[str, float]:
    """How long after a cancel, sent while the prompt is still being evaluated, generation stops."""
    ours_ms, raw_ms = [], []
    for _ in range(repeats):
        ours_ms.append(_stop_after_cancel(ours))
        raw.reset()
        start = time.perf_counter()
        for _chunk in raw.create_completion(PROMPT, max_tokens=1, stream=True):
            raw_ms.append((time.perf_counter() - start - PREFILL_CANCEL_AT) * 1000)
            break
    return {"paperdesk_median": round(statistics.median(ours_ms), 1), "paperdesk_max": round(max(ours_ms), 1),
            "raw_median": round(statistics.median(raw_ms), 1)}


def _beside_a_busy_thread(ours: LocalBackend, raw: Any, repeats: int) -> dict[str, float]:
    """As the TUI and the shell generate: on a worker thread, while another Python thread is always busy (a UI
    at its worst). How long after a cancel 100 ms into the prompt generation stops, and the prompt's seconds
    (paperdesk with its abort flag set, the raw library without any callback) beside that thread."""
    import threading

    stop = threading.Event()

    def spin() -> None:
        while not stop.is_set():
            sum(range(1000))

    def on_worker(work: Any) -> Any:
        out: dict[str, Any] = {}
        thread = threading.Thread(target=lambda: out.update(value=work()), name="bench-worker")
        thread.start()
        thread.join()
        return out["value"]

    def ours_prompt() -> float:
        ours.llama().reset()
        result = generate(ours, GenerationRequest(prompt=PROMPT, max_tokens=1), cancel=CancelToken())
        return result.first_token_s or 0.0

    def raw_prompt() -> float:
        yield_to_ui()  # at the priority paperdesk's generations run at, so only the callback differs
        raw.reset()
        start = time.perf_counter()
        for _chunk in raw.create_completion(PROMPT, max_tokens=1, stream=True):
            break
        return time.perf_counter() - start

    busy = threading.Thread(target=spin, daemon=True)
    busy.start()
    try:
        stops, ours_s, raw_s = [], [], []
        for _ in range(repeats):
            stops.append(on_worker(lambda: _stop_after_cancel(ours)))
            ours_s.append(on_worker(ours_prompt))
            raw_s.append(on_worker(raw_prompt))
    finally:
        stop.set()
        busy.join()
    return {"paperdesk_median": round(statistics.median(stops), 1), "paperdesk_max": round(max(stops), 1),
            "prompt_s_paperdesk": round(statistics.median(ours_s), 2),
            "prompt_s_raw": round(statistics.median(raw_s), 2)}


def run(args: argparse.Namespace, settings: Settings) -> int:
    from llama_cpp import Llama

    choice = resolve_model(settings)
    threads = settings["llm.n_threads"] or os.cpu_count() or 1
    n_ctx = settings["llm.n_ctx"]
    ours = LocalBackend(choice.path, n_ctx=n_ctx, n_threads=threads, n_batch=settings["llm.n_batch"])
    raw = Llama(model_path=str(choice.path), n_ctx=n_ctx, n_threads=threads, verbose=False)
    n_prompt = len(raw.tokenize(PROMPT.encode()))
    note(f"model {choice.path.name}, {n_prompt} prompt tokens, {args.tokens} new tokens, {args.repeats} repeats")

    def raw_run() -> dict[str, float]:
        raw.reset()
        start, first, tokens = time.perf_counter(), None, 0
        for chunk in raw.create_completion(PROMPT, max_tokens=args.tokens, temperature=0.0, stream=True,
                                           logit_bias={raw.token_eos(): -100.0}):
            if chunk["choices"][0]["text"] and first is None:
                first = time.perf_counter() - start
            tokens += 1
        return _rates(n_prompt, tokens, first or 1e-9, time.perf_counter() - start)

    def our_run() -> dict[str, float]:
        ours.llama().reset()
        result = generate(ours, GenerationRequest(prompt=PROMPT, max_tokens=args.tokens, temperature=0.0,
                                                  logit_bias={ours.llama().token_eos(): -100.0}))
        return _rates(n_prompt, result.tokens, result.first_token_s or 1e-9, result.total_s)

    ours.llama()
    raw_run(), our_run()  # warm up
    samples: dict[str, list[dict[str, float]]] = {"raw": [], "paperdesk": []}
    for _ in range(args.repeats):  # interleaved so neither side gets a warmer machine
        samples["raw"].append(raw_run())
        samples["paperdesk"].append(our_run())
    summary = {side: {key: round(statistics.median(s[key] for s in runs), 1) for key in ("prompt_tps", "decode_tps")}
               for side, runs in samples.items()}

    latencies = []
    for _ in range(5):
        token, stamp = CancelToken(), {}

        def on_token(_text: str, token: CancelToken = token, stamp: dict = stamp) -> None:
            if "t" not in stamp and len(stamp) == 0:
                stamp["t"] = time.perf_counter()
                token.cancel()

        ours.llama().reset()
        generate(ours, GenerationRequest(prompt=PROMPT, max_tokens=200), on_token=on_token, cancel=token)
        latencies.append((time.perf_counter() - stamp["t"]) * 1000)
    prefill = _prefill_cancel(ours, raw, args.repeats)
    worker = _beside_a_busy_thread(ours, raw, args.repeats)
    report: dict[str, Any] = {
        "model": choice.path.name,
        "prompt_tokens": n_prompt,
        "new_tokens": args.tokens,
        **summary,
        "decode_ratio": round(summary["paperdesk"]["decode_tps"] / summary["raw"]["decode_tps"], 3),
        "prompt_ratio": round(summary["paperdesk"]["prompt_tps"] / summary["raw"]["prompt_tps"], 3),
        "cancel_latency_ms": {"median": round(statistics.median(latencies), 2), "max": round(max(latencies), 2)},
        "n_batch": ours.n_batch,
        "cancel_in_prompt_ms": prefill,
        "worker_beside_busy_thread": worker,
    }
    lines = [
        f"{report['model']}: {n_prompt} prompt tokens, {args.tokens} new tokens, median of {args.repeats}",
        f"paperdesk  prompt {summary['paperdesk']['prompt_tps']:.1f} tok/s   decode {summary['paperdesk']['decode_tps']:.1f} tok/s",
        f"raw Llama  prompt {summary['raw']['prompt_tps']:.1f} tok/s   decode {summary['raw']['decode_tps']:.1f} tok/s",
        f"ratio      prompt {report['prompt_ratio']:.3f}   decode {report['decode_ratio']:.3f}",
        f"cancel latency: median {report['cancel_latency_ms']['median']:.2f} ms, max {report['cancel_latency_ms']['max']:.2f} ms",
        f"cancel {PREFILL_CANCEL_AT * 1000:.0f} ms into the prompt (n_batch {ours.n_batch}): paperdesk stops after "
        f"median {prefill['paperdesk_median']:.1f} ms (max {prefill['paperdesk_max']:.1f}); raw Llama can stop only at "
        f"its first token, {prefill['raw_median']:.1f} ms later",
        f"on a worker thread beside a busy Python thread: stops {worker['paperdesk_median']:.1f} ms after the cancel "
        f"(max {worker['paperdesk_max']:.1f}); the prompt takes {worker['prompt_s_paperdesk']:.2f} s against "
        f"{worker['prompt_s_raw']:.2f} s for the raw library "
        f"({worker['prompt_s_paperdesk'] / max(worker['prompt_s_raw'], 1e-9):.3f}x)",
    ]
    from paperdesk.core.llm import speeds

    speeds.record(choice.path, {**summary["paperdesk"], "source": f"bench llm, {threads} threads"})
    emit(report, args.json, lines)
    return 0
