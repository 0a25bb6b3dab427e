"""A plan cut to research.max_steps that says what it left out.

When the question's full plan has more steps than research.max_steps allows, the sub-questions are kept
in order, each with the steps it reads, while they fit; every sub-question (and every list or arXiv step)
that does not fit is recorded in `Plan.dropped` with the reason, so the plan view, the status line and the
report all say what was dropped instead of answering less in silence.
"""

from __future__ import annotations

from paperdesk.core.research.plan import Plan, Step, implied_deps

LISTED = ("answer", "extract_list", "arxiv_search", "read_paper")  # what a reader misses when it is dropped


def _closure(plan: Plan, step: Step) -> set[int]:
    """The step and every step it reads from, directly or through others."""
    by_id = {s.id: s for s in plan.steps}
    todo, seen = [step.id], set()
    while todo:
        current = todo.pop()
        if current in seen or current not in by_id:
            continue
        seen.add(current)
        todo.extend(implied_deps(plan, by_id[current]))
    return seen


def what(step: Step) -> str:
    """How a dropped step is named in the report: its sub-question, else its description."""
    if step.tool == "answer":
        return str(step.parameters.get("question") or step.description)
    return step.description or step.tool


def cap_reason(max_steps: int, full: int) -> str:
    return f"research.max_steps is {max_steps} and the full plan has {full} steps"


def fit(full: Plan, max_steps: int) -> Plan | None:
    """The sub-questions of `full` that fit in max_steps (renumbered 1..n), with `dropped` listing the rest;
    None when not one answer fits with the steps it reads."""
    keep: set[int] = set()
    left_out: list[Step] = []
    answers = [s for s in full.steps if s.tool == "answer"]
    others = [s for s in full.steps if s.tool in LISTED and s.tool != "answer"]
    for step in answers + others:
        need = _closure(full, step)
        if len(keep | need) <= max_steps:
            keep |= need
        else:
            left_out.append(step)
    if not any(s.id in keep for s in answers):
        return None
    kept = [s for s in full.steps if s.id in keep]
    ids = {s.id: i for i, s in enumerate(kept, 1)}
    steps = [Step(ids[s.id], s.description, s.tool, dict(s.parameters), s.output_key,
                  [ids[d] for d in s.depends_on if d in ids], s.iterate_over) for s in kept]
    why = cap_reason(max_steps, len(full.steps))
    dropped = [{"question": what(s), "why": why} for s in sorted(left_out, key=lambda s: s.id)]
    plan = Plan(full.query, steps, made_by=full.made_by, notes=list(full.notes), dropped=dropped)
    if dropped:
        plan.notes.append(dropped_note(plan))
    return plan


def dropped_for_minimal(full: Plan, max_steps: int) -> list[dict[str, str]]:
    """What a one-step plan (answer the whole question) leaves out of `full`: its other sub-questions and lists."""
    why = cap_reason(max_steps, len(full.steps))
    whole = full.query.rstrip("?. ").lower()
    return [{"question": what(s), "why": why} for s in full.steps
            if s.tool in LISTED and not (s.tool == "answer" and what(s).rstrip("?. ").lower() == whole)]


def dropped_note(plan: Plan) -> str:
    """The one line the plan view and the status line give the dropped sub-questions."""
    names = "; ".join(d["question"] for d in plan.dropped)
    return f"dropped {len(plan.dropped)} ({plan.dropped[0]['why']}): {names}"
