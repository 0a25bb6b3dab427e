"""Reviewing and editing a plan: diff, TOML round-trip, direct step edits.

Every edit works on a copy and validates it; an invalid edit raises PlanError
with the reason and the caller's plan stays as it was. Steps keep their ids
through edits, so a diff matches steps by id and shows changed fields old -> new.
"""

from __future__ import annotations

import json
import re
import tomllib
from dataclasses import dataclass, field
from typing import Any

from paperdesk.core.research.plan import (
    EDITABLE, TOOLS, Plan, PlanError, Step, _as_list, implied_deps, validate,
)

_DIFF_FIELDS = ("description", "tool", "parameters", "output_key", "depends_on", "iterate_over")


@dataclass
class PlanDiff:
    removed: list[Step] = field(default_factory=list)
    added: list[Step] = field(default_factory=list)
    changed: list[tuple[int, dict[str, tuple[Any, Any]]]] = field(default_factory=list)  # id -> field: (old, new)
    moved: list[int] = field(default_factory=list)  # ids whose position changed
    query: tuple[str, str] | None = None

    @property
    def empty(self) -> bool:
        return not (self.removed or self.added or self.changed or self.moved or self.query)

    def to_json(self) -> dict[str, Any]:
        return {"removed": [s.to_json() for s in self.removed], "added": [s.to_json() for s in self.added],
                "changed": [{"id": i, "fields": {k: {"old": o, "new": n} for k, (o, n) in f.items()}}
                            for i, f in self.changed], "moved": self.moved,
                "query": list(self.query) if self.query else None}

    def lines(self) -> list[tuple[str, str]]:
        """(kind, text) lines for a view: kind is removed, added, changed or moved."""
        out: list[tuple[str, str]] = []
        if self.query:
            out.append(("changed", f"question: {self.query[0]!r} -> {self.query[1]!r}"))
        out += [("removed", f"- {describe(s)}") for s in self.removed]
        out += [("added", f"+ {describe(s)}") for s in self.added]
        for step_id, fields in self.changed:
            out.append(("changed", f"~ step {step_id}:"))
            out += [("changed", f"    {name}: {_short(old)} -> {_short(new)}") for name, (old, new) in fields.items()]
        out += [("moved", f"~ step {i} moved") for i in self.moved]
        return out


def describe(step: Step) -> str:
    """One line for a step: `2 read_paper(paper={item}, query=...) -> per_paper [over papers] after 1`."""
    params = ", ".join(f"{k}={_short(v)}" for k, v in step.parameters.items())
    text = f"{step.id} {step.tool}({params}) -> {step.output_key}"
    if step.iterate_over:
        text += f" for each of {step.iterate_over}"
    if step.depends_on:
        text += f" after {', '.join(map(str, step.depends_on))}"
    return text


def _short(value: Any, limit: int = 60) -> str:
    text = value if isinstance(value, str) else json.dumps(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def diff(old: Plan, new: Plan) -> PlanDiff:
    """What changed from `old` to `new`: steps removed, added, changed fields (by step id), moves."""
    out = PlanDiff()
    if old.query != new.query:
        out.query = (old.query, new.query)
    old_by, new_by = {s.id: s for s in old.steps}, {s.id: s for s in new.steps}
    out.removed = [s for s in old.steps if s.id not in new_by]
    out.added = [s for s in new.steps if s.id not in old_by]
    for s in new.steps:
        if s.id in old_by:
            before = old_by[s.id]
            fields = {f: (getattr(before, f), getattr(s, f)) for f in _DIFF_FIELDS
                      if getattr(before, f) != getattr(s, f)}
            if fields:
                out.changed.append((s.id, fields))
    kept_old = [s.id for s in old.steps if s.id in new_by]
    kept_new = [s.id for s in new.steps if s.id in old_by]
    out.moved = [i for a, i in zip(kept_old, kept_new) if a != i]
    return out


# -- direct edits: each returns a new, validated plan ------------------------------------


def _checked(plan: Plan, **limits: Any) -> Plan:
    plan.made_by = plan.made_by if plan.made_by.endswith("+user") or plan.made_by == "user" else plan.made_by + "+user"
    validate(plan, **limits)
    return plan


def add_step(plan: Plan, tool: str, text: str, **limits: Any) -> Plan:
    """`step add <tool> <text>`: a new last step; it reads the latest passages when the tool needs them."""
    spec = TOOLS.get(tool)
    if spec is None:
        raise PlanError(f"unknown tool {tool!r}; tools: {', '.join(TOOLS)}")
    if not text.strip():
        raise PlanError(f"step add {tool} needs text, e.g. step add {tool} <{spec.text}>")
    new = plan.copy()
    step_id = new.next_id()
    params: dict[str, Any] = {spec.text: text.strip()}
    passages = [s.output_key for s in new.steps if s.tool in ("library_search", "read_paper")]
    if tool == "extract_list":
        if not passages:
            raise PlanError("extract_list reads earlier passages; add a library_search step first")
        params["source"] = passages[-1]
    if tool == "answer" and passages:
        params["inputs"] = passages
    if tool == "read_paper":
        params["query"] = new.query
    new.steps.append(Step(step_id, f"{tool.replace('_', ' ')}: {text.strip()}", tool, params, f"{tool}_{step_id}"))
    return _checked(new, **limits)


def drop_step(plan: Plan, step_id: int, **limits: Any) -> Plan:
    """`step drop N`: refused when another step reads this one's output."""
    new = plan.copy()
    target = new.step(step_id)
    new.steps.remove(target)
    for s in new.steps:
        if step_id in s.depends_on:
            s.depends_on.remove(step_id)
    return _checked(new, **limits)


def edit_step(plan: Plan, step_id: int, assignment: str, **limits: Any) -> Plan:
    """`step edit N field=value`: a step field, or a parameter by name (query=..., k=3)."""
    name, sep, raw = assignment.partition("=")
    name, raw = name.strip(), raw.strip()
    if not sep or not name:
        raise PlanError("write the edit as field=value, e.g. step edit 2 query=datasets used")
    new = plan.copy()
    step = new.step(step_id)
    if name == "depends_on":
        try:
            step.depends_on = [int(x) for x in re.split(r"[,\s]+", raw) if x]
        except ValueError:
            raise PlanError("depends_on takes step numbers, e.g. depends_on=1,2") from None
    elif name == "iterate_over":
        step.iterate_over = raw or None
    elif name in EDITABLE:
        setattr(step, name, raw)
    elif name in ("id", "status", "result"):
        raise PlanError(f"{name} cannot be edited; edit description, tool, output_key, depends_on, "
                        "iterate_over or a parameter")
    else:
        step.parameters[name] = _parse_value(name, raw)
        if raw == "":
            step.parameters.pop(name)
    return _checked(new, **limits)


def _parse_value(name: str, raw: str) -> Any:
    if name in ("k", "max"):
        try:
            return int(raw)
        except ValueError:
            raise PlanError(f"{name} takes a whole number, got {raw!r}") from None
    if name == "inputs":
        return [x for x in re.split(r"[,\s]+", raw) if x]
    return raw


def move_step(plan: Plan, step_id: int, position: int, **limits: Any) -> Plan:
    """`step move N M`: step N becomes the M-th step shown (dependencies still decide the run order)."""
    new = plan.copy()
    step = new.step(step_id)
    if not 1 <= position <= len(new.steps):
        raise PlanError(f"position {position} is outside 1-{len(new.steps)}")
    new.steps.remove(step)
    new.steps.insert(position - 1, step)
    _keep_inputs_first(new, step_id, position)
    return _checked(new, **limits)


def _keep_inputs_first(plan: Plan, step_id: int, position: int) -> None:
    """A step is never shown before a step it reads (depends_on, inputs, source, iterate_over): the listing
    is the order the plan reads in, so a move that breaks it is refused, saying which steps are in the way."""
    place = {s.id: i for i, s in enumerate(plan.steps)}
    step = plan.step(step_id)
    inputs = sorted(d for d in implied_deps(plan, step) if place.get(d, -1) > place[step_id])
    if inputs:
        raise PlanError(f"step move {step_id} {position}: step {step_id} reads {_steps(inputs)}, so it cannot come "
                        f"before {'it' if len(inputs) == 1 else 'them'}; nothing moved (move "
                        f"{'that step' if len(inputs) == 1 else 'those steps'} first, or edit depends_on)")
    readers = sorted(s.id for s in plan.steps if step_id in implied_deps(plan, s) and place[s.id] < place[step_id])
    if readers:
        raise PlanError(f"step move {step_id} {position}: {_steps(readers)} {'reads' if len(readers) == 1 else 'read'}"
                        f" step {step_id}'s output, so step {step_id} cannot come after "
                        f"{'it' if len(readers) == 1 else 'them'}; nothing moved")


def _steps(ids: list[int]) -> str:
    return f"step {ids[0]}" if len(ids) == 1 else "steps " + ", ".join(map(str, ids[:-1])) + f" and {ids[-1]}"


# -- TOML, for `plan edit` in $EDITOR ----------------------------------------------------


def to_toml(plan: Plan) -> str:
    """The plan as TOML: the question, then one [[steps]] table per step (status and results left out)."""
    lines = ["# Edit the steps, save and close. Tools: " + ", ".join(TOOLS),
             "# {item} in a parameter is filled from iterate_over (an earlier output_key).",
             f"query = {_toml(plan.query)}", f"made_by = {_toml(plan.made_by)}", ""]
    for s in plan.steps:
        lines += ["[[steps]]", f"id = {s.id}", f"description = {_toml(s.description)}", f"tool = {_toml(s.tool)}",
                  f"output_key = {_toml(s.output_key)}", f"depends_on = {_toml(s.depends_on)}"]
        if s.iterate_over:
            lines.append(f"iterate_over = {_toml(s.iterate_over)}")
        lines.append("[steps.parameters]")
        lines += [f"{k} = {_toml(v)}" for k, v in s.parameters.items()]
        lines.append("")
    return "\n".join(lines)


def _toml(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return str(value)
    if isinstance(value, list):
        return "[" + ", ".join(_toml(v) for v in value) + "]"
    return json.dumps(str(value), ensure_ascii=False)  # a JSON string is a valid TOML basic string


def from_toml(text: str, base: Plan | None = None, **limits: Any) -> Plan:
    """Parse an edited plan; PlanError (with TOML's own line number) when it is not valid."""
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise PlanError(f"the edited plan is not valid TOML: {exc}; nothing changed") from None
    steps = _as_list(data.get("steps"))
    plan = Plan.from_json({"query": data.get("query", base.query if base else ""), "steps": steps,
                           "made_by": str(data.get("made_by", "user"))})
    if base is not None and plan.made_by == base.made_by:
        plan.made_by = base.made_by
    return _checked(plan, **limits)
