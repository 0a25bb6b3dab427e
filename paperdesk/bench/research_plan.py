"""`paperdesk bench plan [--json]`: the research planner over a labelled dev set of questions.

Figures: valid-plan rate after the fallback (goal 100%), share of plans the
model made (the rest fell back to rules), share a reviewer would accept by the
set's labels, median and p95 planning time (goal: median <= 3 s on 2 cores),
next to the rule planner alone on the same questions in the same run.

A plan is acceptable when it has every tool the question's label requires,
none it forbids, at most its label's step count, no step whose output
nothing reads, and every search query shares a content word with the
question (no copied or off-topic searches).
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from pathlib import Path
from typing import Any

from paperdesk.bench.common import emit, note
from paperdesk.core.config import Settings
from paperdesk.core.research.plan import Plan, PlanError, validate
from paperdesk.core.research.planner import Planner, _stems, planner_model_path
from paperdesk.core.research.rules import pattern_of

DEV_SET = Path(__file__).resolve().parents[2] / "tests" / "fixtures" / "research_questions.jsonl"


def load_dev_set(path: Path = DEV_SET) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def acceptable(plan: Plan, label: dict[str, Any]) -> tuple[bool, str]:
    """Whether a reviewer would accept the plan's steps for this labelled question, and why not."""
    tools = [s.tool for s in plan.steps]
    missing = [t for t in label["require"] if t not in tools]
    if missing:
        return False, f"lacks {missing[0]}"
    banned = [t for t in label.get("forbid", []) if t in tools]
    if banned:
        return False, f"uses {banned[0]}"
    if len(plan.steps) > label.get("max_steps", 8):
        return False, f"{len(plan.steps)} steps"
    read = {r for s in plan.steps for name in ("inputs", "source") for r in _list(s.parameters.get(name))}
    read |= {s.iterate_over for s in plan.steps if s.iterate_over}
    # answers, extracted lists and arXiv results go into the report themselves
    unused = [s for s in plan.steps if s.tool not in ("answer", "extract_list", "arxiv_search") and s.output_key not in read]
    if unused:
        return False, f"step {unused[0].id} feeds nothing"
    asked = _stems(label["question"])
    for s in plan.steps:
        query = s.parameters.get("query")
        if s.tool in ("library_search", "arxiv_search") and not (_stems(str(query)) & asked):
            return False, f"off-topic search {query!r}"
    return True, ""


def _list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else [] if value is None else [value]


def _load(path: Path, settings: Settings) -> Any:
    from paperdesk.core.llm.local import LocalBackend

    backend = LocalBackend(path, n_ctx=2048, n_threads=settings["llm.n_threads"])
    load = time.perf_counter()
    backend.llama()  # loaded outside the timings, as a running app holds it
    note(f"model {path.stem} loaded in {time.perf_counter() - load:.1f} s")
    return backend


def setups(args: argparse.Namespace, settings: Settings) -> list[tuple[str, Any, Any]]:
    """(label, structure backend, writer fallback backend) per planner setting the run compares.

    Without --models: the configured structure model alone, then with the writer model's fallback (what
    research runs). With --models a,b: each model (catalogue name or GGUF path) planning alone.
    """
    if args.no_model:
        return []
    from paperdesk.core.llm.models import resolve_gguf, resolve_writer

    if args.models:
        out = []
        for name in [m.strip() for m in args.models.split(",") if m.strip()]:
            out.append((name, _load(resolve_gguf(name, settings, "--models"), settings), None))
        return out
    path = planner_model_path(settings)
    writer_path = resolve_writer(settings).path
    structure = _load(path, settings) if path is not None else None
    writer = _load(writer_path, settings) if writer_path != path else None
    out = []
    if structure is not None:
        out.append((f"{path.stem} alone", structure, None))
    if writer is not None:
        out.append((f"{path.stem if path else '(none)'} + writer {writer_path.stem}", structure, writer))
    return out


def run(args: argparse.Namespace, settings: Settings) -> int:
    questions = load_dev_set()
    if args.limit and args.limit < len(questions):  # spread over the set, so every pattern is sampled
        questions = [questions[int(i * len(questions) / args.limit)] for i in range(args.limit)]
    offline = settings["offline"]
    rules = Planner(None, offline=offline, max_steps=settings["research.max_steps"])
    rule_times = []
    for label in questions:
        start = time.perf_counter()
        rules.plan(label["question"])
        rule_times.append(time.perf_counter() - start)
    runs = [_measure(label, Planner(structure, label.split(" ")[0], offline=offline,
                                    max_steps=settings["research.max_steps"],
                                    timeout=settings["research.plan_timeout"], writer=writer,
                                    writer_name=getattr(getattr(writer, "model_path", None), "stem", "")),
                     questions, offline)
            for label, structure, writer in setups(args, settings) or [("rules", None, None)]]
    report = {"questions": len(questions), "plan_timeout_s": settings["research.plan_timeout"],
              "median_rules_only_s": statistics.median(rule_times), "settings": runs}
    first = runs[0]  # the older single-setting keys, for scripts that read them
    report.update({k: first[k] for k in ("planner_model", "valid_plan_rate", "share_by_model", "share_acceptable",
                                         "share_acceptable_of_model_plans", "median_plan_s", "p95_plan_s", "rows")})
    lines = [f"{len(questions)} questions (research.plan_timeout {settings['research.plan_timeout']:g} s; "
             f"rules alone: median {report['median_rules_only_s'] * 1000:.2f} ms)",
             f"{'planner':<48} {'valid':>6} {'model':>6} {'acceptable':>10} {'model ok':>9} {'median':>7} {'p95':>6}"]
    for r in runs:
        model_ok = r["share_acceptable_of_model_plans"]
        lines.append(f"{r['planner_model'][:48]:<48} {r['valid_plan_rate']:>6.0%} {r['share_by_model']:>6.0%} "
                     f"{r['share_acceptable']:>10.0%} {'-' if model_ok is None else f'{model_ok:.0%}':>9} "
                     f"{r['median_plan_s']:>6.2f}s {r['p95_plan_s']:>5.2f}s")
    for r in runs:
        lines += [f"  {r['planner_model'][:30]}: not acceptable: {row['question'][:60]} ({row['made_by']}: "
                  f"{row['why_not']})" for row in r["rows"] if not row["acceptable"]]
    emit(report, args.json, lines)
    return 0


def _measure(name: str, planner: Planner, questions: list[dict[str, Any]], offline: bool) -> dict[str, Any]:
    rows, times = [], []
    for i, label in enumerate(questions, start=1):
        start = time.perf_counter()
        plan = planner.plan(label["question"])
        times.append(time.perf_counter() - start)
        try:
            validate(plan, offline=offline)
            valid = True
        except PlanError:
            valid = False
        ok, why = acceptable(plan, label)
        rows.append({"question": label["question"], "made_by": plan.made_by, "valid": valid, "acceptable": ok,
                     "why_not": why, "tools": [s.tool for s in plan.steps], "seconds": round(times[-1], 3),
                     "pattern_label": label["pattern"], "pattern_rules": pattern_of(label["question"])})
        note(f"{name[:24]} {i}/{len(questions)} {times[-1]:.1f} s {plan.made_by:<24} {'ok ' if ok else 'NO '} "
             f"{label['question'][:50]}")
    n = len(rows)
    by_model = sum(r["made_by"].startswith("model:") for r in rows)
    model_ok = sum(r["acceptable"] for r in rows if r["made_by"].startswith("model:"))
    return {"planner_model": name, "valid_plan_rate": sum(r["valid"] for r in rows) / n,
            "share_by_model": by_model / n, "share_acceptable": sum(r["acceptable"] for r in rows) / n,
            "share_acceptable_of_model_plans": model_ok / by_model if by_model else None,
            "median_plan_s": statistics.median(times), "p95_plan_s": sorted(times)[int(0.95 * (n - 1))],
            "rows": rows}
