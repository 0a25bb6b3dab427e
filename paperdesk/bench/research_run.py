"""`paperdesk bench research [--library DIR] [--json]`: a 3-step research run over the 4 fixture papers.

Figures: planning time (the planner model on the question), each step's
time, synthesis and total (goal: total <= 90 s on 2 cores with the default
models), next to today's one-round pipeline (one search, one report) on the
same question in the same run; and cancel latency: the time from cancel()
to the run handing control back, with the cancel landing inside a model step.
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import threading
import time
from pathlib import Path

from paperdesk.bench.common import emit, note
from paperdesk.core.config import Settings
from paperdesk.core.cancel import CancelToken
from paperdesk.core.errors import CancelledError
from paperdesk.core.library.library import Library
from paperdesk.core.research import Researcher, Tracker, load_backends
from paperdesk.core.research.rules import rule_plan

PAPERS = Path(__file__).resolve().parents[2] / "tests" / "fixtures" / "papers"
QUESTION = "Which datasets do the papers use to evaluate their systems?"  # search -> extract_list -> answer


def _library(settings: Settings, home: str | None, tmp: str) -> Library:
    library = Library(settings.with_overrides(home=home or tmp))
    have = library.store.count_papers()
    if have < 4:
        for pdf in sorted(PAPERS.glob("*.pdf")):
            note(f"adding {pdf.name} (not timed) ...")
            library.add_pdf(pdf)
    return library


def run(args: argparse.Namespace, settings: Settings) -> int:
    # The one-round baseline writes as many tokens as one sub-answer, so both do the same writing work;
    # steps get a generous timeout, so a loaded machine yields timings rather than timeouts.
    settings = settings.with_overrides(research__max_tokens=settings["research.step_tokens"],
                                       research__step_timeout=max(settings["research.step_timeout"], 600.0))
    with tempfile.TemporaryDirectory(prefix="paperdesk-bench-") as tmp:
        library = _library(settings, getattr(args, "library", None), tmp)
        library.embedder.model()
        backends = load_backends(library.settings)
        for backend in {id(b): b for b in (backends.writer, backends.planner) if b is not None}.values():
            getattr(backend, "llama", lambda: None)()  # loaded outside the timings, as the app holds them
        researcher = Researcher(library, backends, Tracker.for_library(library))
        start = time.perf_counter()
        model_plan = researcher.plan(QUESTION)
        plan_s = time.perf_counter() - start
        plan = rule_plan(QUESTION, offline=library.settings["offline"])  # the fixed 3-step plan that is timed
        note(f"planned in {plan_s:.1f} s by {model_plan.made_by}; running the 3-step plan ...")
        result = researcher.run(plan)
        note("one-round pipeline on the same question ...")
        start = time.perf_counter()
        researcher.fallback(QUESTION, "benchmark baseline")  # timed: its result is not reported
        baseline_s = time.perf_counter() - start
        cancels = [_cancel_once(researcher, plan) for _ in range(3)]
        latencies, stopped = [c[0] for c in cancels], [c[1] for c in cancels]
        library.close()
    steps = [{"id": s["id"], "tool": s["tool"], "status": s["status"], "seconds": s["seconds"]} for s in result.steps]
    total = plan_s + result.timings["total_s"]
    report = {
        "question": QUESTION, "papers": 4, "planner": model_plan.made_by,
        "plan_s": round(plan_s, 2), "steps": steps, "check_s": round(result.timings["check_s"], 2),
        "synthesis_s": round(result.timings["synthesis_s"], 3), "run_s": round(result.timings["total_s"], 2),
        "total_s": round(total, 2), "one_round_s": round(baseline_s, 2),
        "ratio_to_one_round": round(total / baseline_s, 2) if baseline_s else None,
        "citations": len(result.citations), "unanswered": result.unanswered,
        "cancel_latency_ms": [round(x * 1000, 1) for x in latencies],
        "cancel_latency_median_ms": round(statistics.median(latencies) * 1000, 1),
        "model_stopped_ms": [round(x * 1000, 1) for x in stopped],
    }
    lines = [f"{QUESTION}  (4 fixture papers, plan by {model_plan.made_by})",
             f"plan {plan_s:.2f} s"]
    lines += [f"  step {s['id']} {s['tool']:<15} {s['status']:<10} {s['seconds'] or 0:.2f} s" for s in steps]
    lines += [f"check {report['check_s']:.2f} s   synthesis {report['synthesis_s']:.3f} s   run {report['run_s']:.2f} s",
              f"total (plan + run) {total:.2f} s   one-round pipeline {baseline_s:.2f} s   "
              f"ratio {report['ratio_to_one_round']}x   citations {report['citations']}",
              f"cancel latency {', '.join(f'{x:.0f}' for x in report['cancel_latency_ms'])} ms "
              f"(median {report['cancel_latency_median_ms']:.0f} ms); the model's worker stopped after "
              f"{', '.join(f'{x:.0f}' for x in report['model_stopped_ms'])} ms"]
    emit(report, args.json, lines)
    return 0


def _cancel_once(researcher: Researcher, plan) -> tuple[float, float]:
    """Cancel while the answer step's model is generating: seconds until run() hands control back,
    and until the step's worker thread (the model call) has stopped too."""
    cancel = CancelToken()
    started = threading.Event()

    def on_event(event) -> None:
        if event.kind == "step_start" and event.step_id == plan.steps[-1].id:
            started.set()

    box: dict[str, float] = {}

    def work() -> None:
        try:
            researcher.run(plan, on_event, cancel)
        except CancelledError:
            box["back"] = time.perf_counter()

    worker = threading.Thread(target=work)
    worker.start()
    started.wait(300)
    time.sleep(0.3)  # inside the generation, not at its start
    pressed = time.perf_counter()
    cancel.cancel()
    worker.join(60)
    executor = researcher._executor
    if executor is not None:
        executor.settle()
    return box.get("back", float("nan")) - pressed, time.perf_counter() - pressed
