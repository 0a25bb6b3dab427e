"""Scoring the dispatcher on a labelled dev set (tests/fixtures/route_dev.jsonl).

A dev line is {"message", "context": preset name, "dialogue"?: turns,
"action", "route", "command"}; presets (session states with results,
selection, reader, draft citations, history, library) live in a JSON file
beside it. A decision counts as correct only when action, route and command
(normalised: case, spacing, trailing punctuation) all match; for clarify the
action alone must match.
"""

from __future__ import annotations

import json
import re
import time
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from paperdesk.core.dispatch.dialogue import Dialogue
from paperdesk.core.dispatch.types import Decision, DispatchContext

REPO_FIXTURES = Path(__file__).resolve().parents[3] / "tests" / "fixtures"
DEV_FILE = REPO_FIXTURES / "route_dev.jsonl"


@dataclass
class DevCase:
    message: str
    context: DispatchContext
    action: str
    route: str | None
    command: str | None
    preset: str


@dataclass
class Scored:
    case: DevCase
    decision: Decision
    seconds: float

    @property
    def correct(self) -> bool:
        c, d = self.case, self.decision
        if c.action != d.action:
            return False
        if c.action == "clarify":
            return True
        return c.route == d.route and normalise(c.command) == normalise(d.command)


@dataclass
class Report:
    scored: list[Scored] = field(default_factory=list)

    def accuracy(self, action: str | None = None) -> float:
        rows = [s for s in self.scored if action is None or s.case.action == action]
        return sum(s.correct for s in rows) / len(rows) if rows else 0.0

    def action_accuracy(self) -> float:
        return sum(s.case.action == s.decision.action for s in self.scored) / max(1, len(self.scored))

    def per_action(self) -> dict[str, dict[str, float]]:
        out: dict[str, dict[str, float]] = {}
        groups: dict[str, list[Scored]] = defaultdict(list)
        for s in self.scored:
            groups[s.case.action].append(s)
        for action, rows in sorted(groups.items()):
            out[action] = {"n": len(rows), "accuracy": sum(r.correct for r in rows) / len(rows)}
        return out

    def per_route(self) -> dict[str, dict[str, float]]:
        groups: dict[str, list[Scored]] = defaultdict(list)
        for s in self.scored:
            if s.case.route:
                groups[s.case.route].append(s)
        return {r: {"n": len(rows), "accuracy": sum(x.correct for x in rows) / len(rows)}
                for r, rows in sorted(groups.items())}

    def mistakes(self) -> list[Scored]:
        return [s for s in self.scored if not s.correct]


def normalise(command: str | None) -> str:
    return re.sub(r"\s+", " ", (command or "").strip().lower()).rstrip(" ?.!")


def load_dev(path: Path = DEV_FILE, contexts: Path | None = None) -> list[DevCase]:
    """The labelled cases; `contexts` defaults to route_contexts.json beside the dev file."""
    presets: dict[str, Any] = json.loads((contexts or path.with_name("route_contexts.json")).read_text("utf-8"))
    cases = []
    for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        if not line.strip():
            continue
        row = json.loads(line)
        if row["context"] not in presets:
            raise ValueError(f"{path}:{n}: unknown context preset {row['context']!r}")
        ctx = DispatchContext.from_json(presets[row["context"]])
        if row.get("dialogue"):
            ctx.dialogue = Dialogue.from_json(row["dialogue"])
        cases.append(DevCase(row["message"], ctx, row["action"], row.get("route"), row.get("command"),
                             row["context"]))
    return cases


def evaluate(dispatcher: Any, cases: list[DevCase]) -> Report:
    """Decide every case once, timing each decision."""
    report = Report()
    for case in cases:
        start = time.perf_counter()
        decision = dispatcher.decide(case.message, case.context)
        report.scored.append(Scored(case, decision, time.perf_counter() - start))
    return report
