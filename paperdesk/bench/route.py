"""`paperdesk bench route`: dispatcher accuracy on the labelled sets, and decision latency per route.

Accuracy: a decision is right when action, route and command all match the
label (clarify: the action). Latency: every message decided `--repeats`
times, grouped by what was decided (navigate, delegate, answer:<route>,
clarify) and by the layer that decided (rule, exemplar); next to it, raw
SentenceTransformer.encode of one sentence in the same run, which is the
floor for any decision that needs the exemplars.
"""

from __future__ import annotations

import argparse
import time
from collections import defaultdict
from pathlib import Path

from paperdesk.bench.common import emit, note, percentiles_ms
from paperdesk.core.config import Settings

GOAL_OVERALL, GOAL_PER_ACTION = 0.90, 0.80


class _TimedEncoder:
    """Wraps the embedder so the bench can split a decision into model encode time and the dispatcher's own."""

    def __init__(self, inner) -> None:
        self.inner = inner
        self.spent = 0.0

    def encode(self, texts):
        start = time.perf_counter()
        try:
            return self.inner.encode(texts)
        finally:
            self.spent += time.perf_counter() - start


def _default_sets() -> list[Path]:
    from paperdesk.core.dispatch.evaluate import DEV_FILE

    names = ("route_holdout.jsonl", "route_holdout_fresh.jsonl")  # fresh: written after the rules' audit
    return [p for p in (DEV_FILE, *(DEV_FILE.with_name(n) for n in names)) if p.exists()]


def _raw_encode(raw, message: str) -> None:
    """The embedding library's own encode: SentenceTransformer (torch) or the ONNX Runtime model."""
    if type(raw).__name__ == "SentenceTransformer":
        raw.encode([message], normalize_embeddings=True, convert_to_numpy=True, show_progress_bar=False)
    else:
        raw.encode([message])


def run(args: argparse.Namespace, settings: Settings) -> int:
    from paperdesk.core.dispatch import Dispatcher, from_registry
    from paperdesk.core.dispatch.evaluate import evaluate, load_dev
    from paperdesk.core.search.embedder import Embedder

    sets = args.dev or _default_sets()
    if not sets:
        from paperdesk.cli_common import UsageError

        raise UsageError("bench route: no labelled set found; pass --dev FILE (see tests/fixtures/route_dev.jsonl)")
    embedder = Embedder.from_settings(settings)
    start = time.perf_counter()
    phrases = embedder.phrases()
    dispatcher = Dispatcher(phrases, from_registry())
    dispatcher.warm()
    warm_s = time.perf_counter() - start
    note(f"models loaded and {len(dispatcher.exemplars.exemplars)} exemplars encoded in {warm_s:.1f} s")

    report: dict = {"exemplars": len(dispatcher.exemplars.exemplars), "warm_s": round(warm_s, 2),
                    "phrases_backend": phrases.backend, "sets": {}}
    lines = [f"{report['exemplars']} exemplars encoded ({phrases.backend}) with the model load in {warm_s:.1f} s"]
    by_route: dict[str, list[float]] = defaultdict(list)
    by_stage: dict[str, list[float]] = defaultdict(list)
    own: list[float] = []  # decision time minus the time spent inside the embedding model
    raw = embedder.model()
    raw_samples: list[float] = []  # raw SentenceTransformer.encode of the same message, right after
    paired: list[float] = []  # the exemplar-layer decisions those raw encodes pair with
    timed_encoder = _TimedEncoder(embedder)
    dispatcher.exemplars.encoder = timed_encoder
    for path in sets:
        cases = load_dev(path)
        scored = evaluate(dispatcher, cases)
        for run_no in range(max(1, args.repeats)):
            for case, first in zip(cases, scored.scored):
                if run_no == 0:
                    seconds, d = first.seconds, first.decision  # the accuracy run's own timing
                else:
                    timed_encoder.spent = 0.0
                    t = time.perf_counter()
                    d = dispatcher.decide(case.message, case.context)
                    seconds = time.perf_counter() - t
                    own.append(seconds - timed_encoder.spent)
                    if d.stage in ("exemplar", "fallback"):
                        # The raw library doing the same encode right after, so both see the same machine load.
                        t = time.perf_counter()
                        _raw_encode(raw, case.message)
                        raw_samples.append(time.perf_counter() - t)
                        paired.append(seconds)
                by_route[d.action if d.route is None else f"answer:{d.route}"].append(seconds)
                by_stage[d.stage].append(seconds)
        per_action = scored.per_action()
        entry = {
            "messages": len(cases),
            "accuracy": round(scored.accuracy(), 3),
            "action_accuracy": round(scored.action_accuracy(), 3),
            "per_action": {a: {"n": v["n"], "accuracy": round(v["accuracy"], 3)} for a, v in per_action.items()},
            "per_route": {r: {"n": v["n"], "accuracy": round(v["accuracy"], 3)} for r, v in scored.per_route().items()},
            "goals_met": scored.accuracy() >= GOAL_OVERALL
            and all(v["accuracy"] >= GOAL_PER_ACTION for v in per_action.values()),
            "mistakes": [{"message": m.case.message, "context": m.case.preset,
                          "want": [m.case.action, m.case.route, m.case.command],
                          "got": [m.decision.action, m.decision.route, m.decision.command]}
                         for m in scored.mistakes()],
        }
        report["sets"][path.name] = entry
        lines.append(f"\n{path.name}: {len(cases)} messages, accuracy {entry['accuracy']:.1%} (action, route and "
                     f"command all right; action alone {entry['action_accuracy']:.1%}); goals "
                     f"(>= {GOAL_OVERALL:.0%} overall, every action >= {GOAL_PER_ACTION:.0%}) "
                     f"{'met' if entry['goals_met'] else 'NOT met'}")
        for action, v in entry["per_action"].items():
            lines.append(f"  {action:<10} {v['accuracy']:6.1%}  of {v['n']}")
        for route, v in entry["per_route"].items():
            lines.append(f"  answer:{route:<13} {v['accuracy']:6.1%}  of {v['n']}")
        for m in entry["mistakes"]:
            lines.append(f"  miss [{m['context']}] {m['message']!r}: want {m['want']} got {m['got']}")

    if not raw_samples:  # --repeats 1: no paired samples; time a few raw encodes on their own
        for text in [c.message for c in load_dev(sets[0])][:40]:
            t = time.perf_counter()
            _raw_encode(raw, text)
            raw_samples.append(time.perf_counter() - t)
    raw_p50 = percentiles_ms(raw_samples)
    report["latency_by_decision"] = {k: {**{m: round(x, 2) for m, x in percentiles_ms(v).items()}, "n": len(v)}
                                     for k, v in sorted(by_route.items())}
    report["latency_by_layer"] = {k: {**{m: round(x, 2) for m, x in percentiles_ms(v).items()}, "n": len(v)}
                                  for k, v in sorted(by_stage.items())}
    no_model = [x for k, v in by_stage.items() if k != "model" for x in v]
    report["decision_no_model"] = {m: round(x, 2) for m, x in percentiles_ms(no_model).items()}
    report["raw_minilm_encode_one"] = {m: round(x, 2) for m, x in raw_p50.items()}
    if own:
        report["dispatcher_own_time"] = {m: round(x, 3) for m, x in percentiles_ms(own).items()}
    exemplar_p50 = percentiles_ms(paired)["p50_ms"] if paired else None
    if exemplar_p50:
        report["exemplar_vs_raw_encode_p50"] = round(exemplar_p50 / raw_p50["p50_ms"], 3)
    lines.append(f"\nlatency per decision ({args.repeats} runs of every message; goals: navigate <= 100 ms, "
                 f"decision p50 <= 30 ms without a model call)")
    for k, v in report["latency_by_decision"].items():
        lines.append(f"  {k:<20} p50 {v['p50_ms']:7.2f} ms   p95 {v['p95_ms']:7.2f} ms   ({v['n']})")
    for k, v in report["latency_by_layer"].items():
        lines.append(f"  layer {k:<14} p50 {v['p50_ms']:7.2f} ms   p95 {v['p95_ms']:7.2f} ms   ({v['n']})")
    lines.append(f"  all decisions (no model) p50 {report['decision_no_model']['p50_ms']:.2f} ms   "
                 f"p95 {report['decision_no_model']['p95_ms']:.2f} ms")
    lines.append(f"  raw embedding-model encode ({type(raw).__name__}) of the same messages, right after: "
                 f"p50 {raw_p50['p50_ms']:.2f} ms   p95 {raw_p50['p95_ms']:.2f} ms")
    if own:
        lines.append(f"  dispatcher's own time (decision minus model encode): p50 "
                     f"{report['dispatcher_own_time']['p50_ms']:.3f} ms   p95 {report['dispatcher_own_time']['p95_ms']:.3f} ms")
    if exemplar_p50:
        lines.append(f"  exemplar-layer decision / raw encode (paired samples) at p50: "
                     f"{report['exemplar_vs_raw_encode_p50']:.3f}")
    from paperdesk.bench.route_interrupt import measure

    dispatcher.exemplars.encoder = embedder  # the interrupt runs untimed by the encoder wrapper
    from paperdesk.bench.route_desk import measure as measure_desk

    report["desk_navigate"], more = measure_desk(embedder)
    lines += more
    report["interrupt"], more = measure(dispatcher, settings)
    lines += more
    emit(report, args.json, lines)
    return 0
