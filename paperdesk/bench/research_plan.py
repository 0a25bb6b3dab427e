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


def run(args: argparse.Namespace, settings: Settings) -> int:
    questions = load_dev_set()
    if args.limit and args.limit < len(questions):  # spread over the set, so every pattern is sampled
        questions = [questions[int(i * len(questions) / args.limit)] for i in range(args.limit)]
    backend, name = None, "none"
    if not args.no_model:
        path = planner_model_path(settings)
        if path is not None:
            from paperdesk.core.llm.local import LocalBackend

            backend, name = LocalBackend(path, n_ctx=2048, n_threads=settings["llm.n_threads"]), path.stem
            load = time.perf_counter()
            backend.llama()  # loaded outside the timings, as a running app holds it
            note(f"planner model {name} loaded in {time.perf_counter() - load:.1f} s")
    offline = settings["offline"]
    planner = Planner(backend, name, offline=offline, max_steps=settings["research.max_steps"],
                      timeout=settings["research.plan_timeout"])
    rules = Planner(None, offline=offline, max_steps=settings["research.max_steps"])
    rows, times, rule_times = [], [], []
    for i, label in enumerate(questions, start=1):
        start = time.perf_counter()
        plan = planner.plan(label["question"])
        times.append(time.perf_counter() - start)
        start = time.perf_counter()
        rules.plan(label["question"])
        rule_times.append(time.perf_counter() - start)
        try:
            validate(plan, offline=offline)
            valid = True
        except PlanError:
            valid = False
        ok, why = acceptable(plan, label)
        rows.append({"question": label["question"], "made_by": plan.made_by, "valid": valid, "acceptable": ok,
                     "why_not": why, "tools": [s.tool for s in plan.steps], "seconds": round(times[-1], 3),
                     "pattern_label": label["pattern"], "pattern_rules": pattern_of(label["question"])})
        note(f"{i}/{len(questions)} {times[-1]:.1f} s {plan.made_by:<24} {'ok ' if ok else 'NO '} {label['question'][:50]}")
    n = len(rows)
    by_model = sum(r["made_by"].startswith("model:") for r in rows)
    model_ok = sum(r["acceptable"] for r in rows if r["made_by"].startswith("model:"))
    report = {
        "questions": n, "planner_model": name, "plan_timeout_s": settings["research.plan_timeout"],
        "valid_plan_rate": sum(r["valid"] for r in rows) / n,
        "share_by_model": by_model / n,
        "share_acceptable": sum(r["acceptable"] for r in rows) / n,
        "share_acceptable_of_model_plans": model_ok / by_model if by_model else None,
        "median_plan_s": statistics.median(times), "p95_plan_s": sorted(times)[int(0.95 * (n - 1))],
        "median_rules_only_s": statistics.median(rule_times),
        "rows": rows,
    }
    lines = [
        f"{n} questions, planner model: {name} (research.plan_timeout {settings['research.plan_timeout']:g} s)",
        f"valid plans {report['valid_plan_rate']:.0%}   made by the model {report['share_by_model']:.0%}   "
        f"acceptable {report['share_acceptable']:.0%}"
        + (f" (model plans: {report['share_acceptable_of_model_plans']:.0%})" if by_model else ""),
        f"planning time median {report['median_plan_s']:.2f} s   p95 {report['p95_plan_s']:.2f} s   "
        f"(rules alone: median {report['median_rules_only_s'] * 1000:.2f} ms)",
    ]
    lines += [f"  not acceptable: {r['question'][:60]} ({r['made_by']}: {r['why_not']})"
              for r in rows if not r["acceptable"]]
    emit(report, args.json, lines)
    return 0
