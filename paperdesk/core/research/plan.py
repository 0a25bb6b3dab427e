"""The research plan: steps with a tool, parameters, an output key and dependencies.

A plan is plain data that the user reviews and edits before it runs, so every
change goes through `validate`, which names the step and the problem. Direct
edits (`add_step`, `drop_step`, `edit_step`, `move_step`) return a new plan
and raise PlanError without touching the old one when the result is invalid.
"""

from __future__ import annotations

import copy
import json
import re
from dataclasses import asdict, dataclass, field
from typing import Any

from paperdesk.core.errors import PaperdeskError

PENDING, IN_PROGRESS, COMPLETED, FAILED, SKIPPED = "PENDING", "IN_PROGRESS", "COMPLETED", "FAILED", "SKIPPED"
STATUSES = (PENDING, IN_PROGRESS, COMPLETED, FAILED, SKIPPED)
ITEM = "{item}"
MAX_STEPS = 8
MAX_ITERATIONS = 20


@dataclass(frozen=True)
class ToolSpec:
    name: str
    required: tuple[str, ...]  # parameters that must be present and non-empty
    optional: tuple[str, ...] = ()
    online: bool = False
    refs: tuple[str, ...] = ()  # parameters naming earlier output keys
    text: str = "query"  # the parameter `step add <tool> <text>` fills
    summary: str = ""


TOOLS: dict[str, ToolSpec] = {t.name: t for t in (
    ToolSpec("library_search", ("query",), ("k",), summary="hybrid search over the library's passages"),
    ToolSpec("read_paper", ("paper", "query"), ("k",), text="paper",
             summary="the pages of one library paper that match a query"),
    ToolSpec("paper_summary", ("paper",), text="paper", summary="a library paper's stored summary"),
    ToolSpec("arxiv_search", ("query",), ("max",), online=True, summary="new work on arXiv (not added)"),
    ToolSpec("extract_list", ("source", "kind"), refs=("source",), text="kind",
             summary="dataset / method / metric names pulled from earlier passages"),
    ToolSpec("answer", ("question",), ("inputs",), refs=("inputs",), text="question",
             summary="a cited sub-answer from earlier passages"),
)}
EDITABLE = ("description", "tool", "output_key", "depends_on", "iterate_over")


class PlanError(PaperdeskError):
    """A plan or an edit of it is invalid; the message names the step and the problem."""


@dataclass
class Step:
    id: int
    description: str
    tool: str
    parameters: dict[str, Any]
    output_key: str
    depends_on: list[int] = field(default_factory=list)
    iterate_over: str | None = None
    status: str = PENDING
    result: Any = None

    def to_json(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> "Step":
        if not isinstance(data, dict):
            raise PlanError(f"a step must be an object, got {type(data).__name__}")
        try:
            return cls(
                id=int(data["id"]),
                description=str(data.get("description", "")),
                tool=str(data["tool"]),
                parameters=dict(data.get("parameters") or {}),
                output_key=str(data.get("output_key") or f"step{data['id']}"),
                depends_on=[int(d) for d in _as_list(data.get("depends_on"))],
                iterate_over=data.get("iterate_over") or None,
                status=str(data.get("status", PENDING)),
                result=data.get("result"),
            )
        except (KeyError, TypeError, ValueError) as exc:
            raise PlanError(f"step {data.get('id', '?')}: malformed ({exc}); each step needs id, tool, parameters") from None


@dataclass
class Plan:
    query: str
    steps: list[Step]
    status: str = PENDING
    made_by: str = "rules"  # "model:<name>", "rules", "user", "fallback"
    notes: list[str] = field(default_factory=list)
    dropped: list[dict[str, str]] = field(default_factory=list)  # {"question", "why"}: sub-questions a cap left out

    def to_json(self) -> dict[str, Any]:
        data = {"query": self.query, "status": self.status, "made_by": self.made_by, "notes": list(self.notes),
                "steps": [s.to_json() for s in self.steps]}
        if self.dropped:  # only then, so plans stored before keep their JSON
            data["dropped"] = [dict(d) for d in self.dropped]
        return data

    @classmethod
    def from_json(cls, data: dict[str, Any] | str) -> "Plan":
        if isinstance(data, str):
            try:
                data = json.loads(data)
            except json.JSONDecodeError as exc:
                raise PlanError(f"the plan is not valid JSON ({exc.msg} at character {exc.pos})") from None
        if not isinstance(data, dict) or not isinstance(data.get("steps"), list):
            raise PlanError("a plan needs a query and a list of steps")
        dropped = [{"question": str(d.get("question", "")), "why": str(d.get("why", ""))}
                   for d in data.get("dropped") or [] if isinstance(d, dict)]
        return cls(str(data.get("query", "")), [Step.from_json(s) for s in data["steps"]],
                   str(data.get("status", PENDING)), str(data.get("made_by", "user")), list(data.get("notes") or []),
                   dropped)

    def copy(self) -> "Plan":
        return copy.deepcopy(self)

    def step(self, step_id: int) -> Step:
        for s in self.steps:
            if s.id == step_id:
                return s
        raise PlanError(f"there is no step {step_id}; the plan has steps {', '.join(str(s.id) for s in self.steps)}")

    def by_key(self) -> dict[str, Step]:
        return {s.output_key: s for s in self.steps}

    def next_id(self) -> int:
        return max((s.id for s in self.steps), default=0) + 1


def _as_list(value: Any) -> list[Any]:
    if value is None:
        return []
    return value if isinstance(value, list) else [value]


# -- validation ----------------------------------------------------------------------


def validate(plan: Plan, max_steps: int = MAX_STEPS, offline: bool = False,
             max_iterations: int = MAX_ITERATIONS) -> None:
    """Raise PlanError naming the first step with a problem; return None for a runnable plan."""
    if not plan.query.strip():
        raise PlanError("the plan has no question; give it one")
    if not plan.steps:
        raise PlanError("the plan has no steps; add one with: step add library_search <query>")
    if len(plan.steps) > max_steps:
        raise PlanError(f"the plan has {len(plan.steps)} steps; at most {max_steps} are allowed "
                        "(config key research.max_steps); drop some")
    ids = [s.id for s in plan.steps]
    dupes = sorted({i for i in ids if ids.count(i) > 1})
    if dupes:
        raise PlanError(f"step {dupes[0]}: two steps have this id; ids must be unique")
    keys: dict[str, int] = {}
    for s in plan.steps:
        if s.output_key in keys:
            raise PlanError(f"step {s.id}: output_key {s.output_key!r} is already step {keys[s.output_key]}'s")
        if not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]{0,39}", s.output_key):
            raise PlanError(f"step {s.id}: output_key {s.output_key!r} must be a short name of letters, digits, _")
        keys[s.output_key] = s.id
    for s in plan.steps:
        _validate_step(s, keys, set(ids), offline, max_iterations)
    cycle = find_cycle(plan)
    if cycle:
        raise PlanError(f"step {cycle[0]}: depends_on makes a cycle ({' -> '.join(map(str, cycle))}); break it")


def _validate_step(s: Step, keys: dict[str, int], ids: set[int], offline: bool, max_iterations: int) -> None:
    spec = TOOLS.get(s.tool)
    if spec is None:
        raise PlanError(f"step {s.id}: unknown tool {s.tool!r}; tools: {', '.join(TOOLS)}")
    if s.status not in STATUSES:
        raise PlanError(f"step {s.id}: unknown status {s.status!r}")
    if spec.online and offline:
        raise PlanError(f"step {s.id}: {s.tool} needs the network and paperdesk is offline; drop the step")
    for name in spec.required:
        value = s.parameters.get(name)
        if value is None or (isinstance(value, (str, list)) and not value):
            raise PlanError(f"step {s.id}: {s.tool} needs parameter {name!r}")
    unknown = set(s.parameters) - set(spec.required) - set(spec.optional)
    if unknown:
        raise PlanError(f"step {s.id}: {s.tool} has no parameter {sorted(unknown)[0]!r}; "
                        f"it takes {', '.join(spec.required + spec.optional)}")
    for name in spec.refs:
        for ref in _as_list(s.parameters.get(name)):
            if ref not in keys:
                raise PlanError(f"step {s.id}: {name} names unknown output_key {ref!r}; known: {', '.join(keys)}")
            if keys[ref] == s.id:
                raise PlanError(f"step {s.id}: {name} names its own output_key {ref!r}")
    for dep in s.depends_on:
        if dep not in ids:
            raise PlanError(f"step {s.id}: depends_on names unknown step {dep}")
    uses_item = any(ITEM in str(v) for v in s.parameters.values())
    if uses_item and not s.iterate_over:
        raise PlanError(f"step {s.id}: parameters use {ITEM} but iterate_over is not set; name an output_key")
    if s.iterate_over:
        if s.iterate_over not in keys:
            raise PlanError(f"step {s.id}: iterate_over names unknown output_key {s.iterate_over!r}")
        if keys[s.iterate_over] == s.id:
            raise PlanError(f"step {s.id}: iterate_over names its own output_key")
        if not uses_item:
            raise PlanError(f"step {s.id}: iterate_over is set but no parameter uses {ITEM}")
    limit = s.parameters.get("k") or s.parameters.get("max")
    if limit is not None and (not isinstance(limit, int) or not 1 <= limit <= max_iterations):
        raise PlanError(f"step {s.id}: k/max must be a whole number from 1 to {max_iterations}")


def implied_deps(plan: Plan, step: Step) -> set[int]:
    """depends_on plus the steps whose output this step reads (refs, iterate_over)."""
    keys = plan.by_key()
    deps = set(step.depends_on)
    spec = TOOLS.get(step.tool)
    refs = [r for name in (spec.refs if spec else ()) for r in _as_list(step.parameters.get(name))]
    for ref in refs + ([step.iterate_over] if step.iterate_over else []):
        if ref in keys:
            deps.add(keys[ref].id)
    deps.discard(step.id)
    return deps


def find_cycle(plan: Plan) -> list[int]:
    """A dependency cycle as step ids (first id repeated at the end), or [] when there is none."""
    graph = {s.id: sorted(implied_deps(plan, s)) for s in plan.steps}
    state: dict[int, int] = {}  # 1 visiting, 2 done
    path: list[int] = []

    def visit(node: int) -> list[int]:
        state[node] = 1
        path.append(node)
        for nxt in graph.get(node, []):
            if state.get(nxt) == 1:
                return path[path.index(nxt):] + [nxt]
            if nxt not in state:
                found = visit(nxt)
                if found:
                    return found
        path.pop()
        state[node] = 2
        return []

    for s in plan.steps:
        if s.id not in state:
            found = visit(s.id)
            if found:
                return found
    return []


def order(plan: Plan) -> list[Step]:
    """Steps in dependency order; ties keep the plan's own order (the order the user arranged)."""
    done: set[int] = set()
    out: list[Step] = []
    pending = list(plan.steps)
    while pending:
        ready = next((s for s in pending if implied_deps(plan, s) <= done), None)
        if ready is None:
            raise PlanError(f"step {pending[0].id}: its dependencies can never finish (a cycle)")
        out.append(ready)
        done.add(ready.id)
        pending.remove(ready)
    return out


def fill_item(parameters: dict[str, Any], item: str) -> dict[str, Any]:
    """The parameters with every {item} replaced by one iterated value."""
    return {k: v.replace(ITEM, item) if isinstance(v, str) else v for k, v in parameters.items()}
