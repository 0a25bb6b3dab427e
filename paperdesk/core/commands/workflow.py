"""The command workflow of spec/workflow.md: one python-statemachine model.

The machine is built from the command registry (`registry.py`): every
command's rules become its transitions, and every guard a rule names becomes
a condition. Every face asks this model what is enabled now and why
something is not; guards read the `WorkflowContext` and never change anything,
and each failed guard says its own reason.

Commands whose next state depends on what they found (`find`, `list`,
`sem-search`, `research`) are sent with `count=`: the `has_results` condition
picks the rule's target, otherwise its `if_empty` one.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any, Callable

from statemachine import Event, State, StateMachine
from statemachine.factory import StateMachineMetaclass

from paperdesk.core.commands.guards import GUARDS, Guard
from paperdesk.core.commands.registry import COMMANDS, SPECS
from paperdesk.core.commands.states import SAME, STATE_BY_NAME, STATE_NAMES, STATES

__all__ = ["SAME", "STATES", "STATE_NAMES", "WorkflowContext", "Availability", "WorkflowMachine", "Workflow",
           "new_workflow", "event_id"]


def event_id(name: str) -> str:
    """The state machine's event id for a command name (sem-search -> sem_search)."""
    return name.replace("-", "_")


@dataclass
class WorkflowContext:
    """What the guards read. `state` is written by the state machine itself."""

    state: str | None = None  # the state name, e.g. "draft-summary"
    forced_offline: str | None = None  # why offline was asked for (--offline, config), or None
    remote_model: bool = False  # generation goes to a remote endpoint
    retry_seconds: float = 60.0  # after arXiv was unreachable, how long network commands stay disabled
    downloaded: list[bool] = field(default_factory=list)  # per result in last_query_set: already in the library?
    # Facts of the plan under review, kept up to date by the Desk for the plan guards
    plan_pending: bool = False  # a revision is proposed and waits for accept / reject
    plan_problem: str | None = None  # why the current plan is invalid, or None
    plan_network: list[int] = field(default_factory=list)  # ids of the plan's steps that need the network
    report_saved: bool = False  # the research report under review has been kept as a report (save)
    _detected_at: float | None = None  # time.monotonic() when arXiv was found unreachable
    clock: Callable[[], float] = time.monotonic

    def offline_reason(self) -> str | None:
        """Why network commands are off now, or None when online."""
        if self.forced_offline:
            return self.forced_offline
        if self._detected_at is not None:
            left = self.retry_seconds - (self.clock() - self._detected_at)
            if left > 0:
                return f"arXiv unreachable; retrying allowed in {left:.0f} s"
        return None

    def mark_unreachable(self) -> None:
        self._detected_at = self.clock()

    def mark_reachable(self) -> None:
        self._detected_at = None

    @property
    def mode(self) -> str:
        reason = self.offline_reason()
        return "online" if reason is None else f"offline ({reason})"


@dataclass(frozen=True)
class Availability:
    """One command as help, the footer and the palette show it."""

    name: str
    usage: str
    summary: str
    enabled: bool
    reason: str  # empty when enabled


class WorkflowMachine(StateMachine):
    """Base of the generated machine: the questions faces ask (guard methods are added per guard)."""

    model: WorkflowContext

    def has_results(self, count: int = 1) -> bool:
        return count > 0

    def planning(self, planning: bool = False) -> bool:
        """The command only made (or reopened) a plan: research in plan mode, research --resume of a plan."""
        return planning

    @property
    def state(self) -> str:
        return str(self.current_state_value)

    def allows(self, command: str) -> bool:
        """The current state has a transition for `command` (guards not considered)."""
        eid = event_id(command)
        return any(str(e) == eid for e in self.allowed_events)

    def refusal(self, command: str, **facts: Any) -> str | None:
        """None when `command` may run now; otherwise what is wrong and what would enable it."""
        state = self.state
        spec = SPECS[command]
        if not self.allows(command):
            hint = STATE_BY_NAME[state].blocks or spec.hint_in(state)
            return f"{command} is not available in {state}: {hint}"
        rule = spec.rule_in(state)
        failed = next((g for g in (rule.guards if rule else ()) if not g.passes(self.model, facts)), None)
        return None if failed is None else f"{command} is not available {failed.refusal(self.model)}"

    def availability(self) -> list[Availability]:
        """Every command with whether it may run now and, if not, why."""
        rows = []
        for spec in COMMANDS:
            why = self.refusal(spec.name)
            rows.append(Availability(spec.name, spec.usage, spec.summary, why is None, why or ""))
        return rows

    def enabled_commands(self) -> list[str]:
        names = {str(e) for e in self.enabled_events()}
        return [c.name for c in COMMANDS if event_id(c.name) in names]

    def apply(self, command: str, **facts: Any) -> tuple[str, str]:
        """Send the command's event; return (source, target) state names."""
        source = self.state
        self.send(event_id(command), **facts)
        return source, self.state


def _guard_method(guard: Guard) -> Callable[..., bool]:
    def method(self: WorkflowMachine, **facts: Any) -> bool:
        return guard.passes(self.model, facts)

    method.__name__ = guard.name
    return method


def _build_machine_class() -> type[WorkflowMachine]:
    states = {info.id: State(name=info.name, value=info.name, initial=info.name == "initial") for info in STATES}
    events: dict[str, Any] = {}
    for spec in COMMANDS:
        for rule in spec.rules:
            for source_name in rule.sources:
                # A rule with `when` applies only when that fact is sent; the others of the same command
                # and source then apply only when it is not (research in plan mode vs. in agent mode).
                whens = [r.when for r in spec.rules if r.when and source_name in r.sources]
                guards = [g.name for g in rule.guards] + ([rule.when] if rule.when else [])
                unless = [] if rule.when else whens
                source = states[STATE_BY_NAME[source_name].id]
                if rule.target == SAME:
                    transitions = source.to.itself(internal=True, cond=guards or None, unless=unless or None)
                elif rule.if_empty is None:
                    transitions = source.to(states[STATE_BY_NAME[rule.target].id], cond=guards or None,
                                            unless=unless or None)
                else:
                    found, empty = states[STATE_BY_NAME[rule.target].id], states[STATE_BY_NAME[rule.if_empty].id]
                    transitions = source.to(found, cond=guards + ["has_results"], unless=unless or None) | source.to(
                        empty, cond=guards or None, unless=["has_results", *unless])
                eid = event_id(spec.name)
                events[eid] = events[eid] | transitions if eid in events else transitions
    attrs: dict[str, Any] = dict(states)
    attrs.update({g.name: _guard_method(g) for g in GUARDS})
    for eid, transitions in events.items():
        attrs[eid] = Event(transitions, id=eid, name=eid.replace("_", "-"))
    attrs["__module__"] = __name__
    return StateMachineMetaclass("Workflow", (WorkflowMachine,), attrs)  # type: ignore[return-value]


Workflow = _build_machine_class()


def new_workflow(context: WorkflowContext, listeners: list[object] | None = None) -> WorkflowMachine:
    """A workflow in `context.state` (resumed), or in `initial` when that is unset or unknown."""
    if context.state not in STATE_NAMES:
        context.state = None
    return Workflow(model=context, listeners=listeners)  # type: ignore[return-value]
