"""The report's "Steps that failed" part: each plan step that produced nothing, by number and tool, and why.

A step that failed (its error names the limit that stopped it, when it ran out of time) or was skipped
because what it reads failed is listed here, so a report built from the other steps says what is
missing from it: an answer step's line names the question that is left unanswered.
"""

from __future__ import annotations

from typing import Any

from paperdesk.core.research.plan import Plan


def failed_rows(plan: Plan, failed: dict[int, str], skipped: dict[int, str]) -> list[dict[str, Any]]:
    """{id, tool, status, why} for each plan step that failed or was skipped, in plan order."""
    rows = []
    for step in plan.steps:
        if step.id not in failed and step.id not in skipped:
            continue
        row = {"id": step.id, "tool": step.tool, "status": "failed" if step.id in failed else "skipped",
               "why": failed.get(step.id) or skipped[step.id]}
        question = _question(step)
        rows.append({**row, "question": question} if question else row)
    return rows


def failed_part(rows: list[dict[str, Any]]) -> str:
    """The markdown part ('' when every step ran)."""
    if not rows:
        return ""
    lines = ["## Steps that failed", "", "The report is built from the steps that finished; these gave nothing:"]
    for row in rows:
        unanswered = f"; not answered: {row['question']}" if row.get("question") else ""
        lines.append(f"- step {row['id']} ({row['tool']}) {row['status']}: {row['why']}{unanswered}")
    return "\n".join(lines) + "\n\n"


def summary(rows: list[dict[str, Any]]) -> str:
    """'step 2 (answer) failed: stopped by ...; step 3 (answer) skipped: ...' for the run's record and status."""
    return "; ".join(f"step {r['id']} ({r['tool']}) {r['status']}: {r['why']}" for r in rows)


def unrun_questions(plan: Plan, failed: dict[int, str], skipped: dict[int, str]) -> list[str]:
    """The questions of answer steps that failed or were skipped."""
    return [q for s in plan.steps if (s.id in failed or s.id in skipped) for q in [_question(s)] if q]


def _question(step: Any) -> str:
    """An answer step's question ('' for other tools, and for an iterated one, which has no single question)."""
    if step.tool != "answer" or step.iterate_over:
        return ""
    return str(step.parameters.get("question") or "")
