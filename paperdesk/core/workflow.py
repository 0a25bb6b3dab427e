"""The command workflow of spec/workflow.md: one python-statemachine model.

The spec's command table is written down once, as data (`RULES`), and the
state machine class is built from it, so later states (plan review,
discussion) are new rows, not rewrites. Every face asks this model what is
enabled now and why something is not; guards read the `WorkflowContext` and
never change anything.

Commands whose next state depends on what they found (`find`, `list`,
`sem-search`, `research`) are sent with `count=`: the `has_results` guard picks
the "results" target, otherwise the "empty" one.
"""

from __future__ import annotations

import inspect
import time
from dataclasses import dataclass, field
from typing import Any, Callable

from statemachine import Event, State, StateMachine
from statemachine.factory import StateMachineMetaclass

from paperdesk.core.commands import COMMANDS, event_id

SAME = "(same)"


@dataclass(frozen=True)
class StateInfo:
    name: str  # as `status` prints it
    workflow: str
    exit_state: bool
    meaning: str

    @property
    def id(self) -> str:
        return self.name.replace("-", "_")


STATES: tuple[StateInfo, ...] = (
    StateInfo("initial", "-", True, "start, or a query returned nothing"),
    StateInfo("select-new", "new-paper", True, "find returned arXiv results; pick one to add"),
    StateInfo("draft-summary", "new-paper", False, "paper downloaded and indexed; its summary draft is under review"),
    StateInfo("summarized", "new-paper", True, "summary saved; the paper is in the collection"),
    StateInfo("select-view", "view-paper", True, "list returned the library; pick one to view"),
    StateInfo("draft-sem-search", "semantic-search", True, "hybrid search with a cited answer draft"),
    StateInfo("draft-research", "research", True, "research report draft"),
)
STATE_NAMES: tuple[str, ...] = tuple(s.name for s in STATES)
STATE_INFO: dict[str, StateInfo] = {s.name: s for s in STATES}

ANY = STATE_NAMES
ANY_STAR = tuple(s for s in STATE_NAMES if s != "draft-summary")
DRAFTS = ("draft-summary", "summarized", "draft-sem-search", "draft-research")
VIEWERS = ("select-view", "draft-sem-search", "draft-research")


@dataclass(frozen=True)
class Rule:
    """One row of the command table: where a command may run and where it leads."""

    command: str
    sources: tuple[str, ...]
    target: str = SAME  # a state name, or SAME
    if_empty: str | None = None  # the target when the command found nothing
    guards: tuple[str, ...] = ()


RULES: tuple[Rule, ...] = (
    Rule("find", ANY_STAR, "select-new", if_empty="initial", guards=("online",)),
    Rule("summarize", ("select-new",), "draft-summary", guards=("fetchable", "model_reachable")),
    Rule("improve", DRAFTS, guards=("model_reachable",)),
    Rule("notes", ("draft-summary", "summarized")),
    Rule("save", ("draft-summary",), "summarized"),
    Rule("save", ("draft-sem-search", "draft-research")),
    Rule("abandon", ("draft-summary",), "initial"),
    Rule("sem-search", ANY_STAR, "draft-sem-search", if_empty="initial", guards=("model_reachable",)),
    Rule("research", ANY_STAR, "draft-research", if_empty="initial", guards=("model_reachable",)),
    Rule("list", tuple(s for s in ANY_STAR if s != "draft-research"), "select-view", if_empty="initial"),
    Rule("summary", VIEWERS),
    Rule("open", VIEWERS),
    # Extension planned by the spec: undo / redo over draft revisions.
    Rule("undo", DRAFTS),
    Rule("redo", DRAFTS),
    Rule("help", ANY),
    Rule("status", ANY),
    Rule("history", ANY),
    Rule("clear", ANY),
    Rule("quit", ANY),
)

# What would enable a command that the current state does not allow.
_ENABLE_HINTS: dict[str, str] = {
    "summarize": "find papers first (find <query>), then summarize <n>",
    "improve": "summarize a paper first (summarize <n>), or run sem-search <query> or research <query>",
    "notes": "notes belong to the paper being summarized; summarize a paper first (summarize <n>)",
    "save": "there is no draft to save; summarize a paper, or run sem-search <query> or research <query>",
    "abandon": "abandon discards a draft summary and there is none; summarize <n> starts one",
    "summary": "list the library first (list), or run sem-search <query>",
    "open": "list the library first (list), or run sem-search <query>",
    "undo": "there is no draft; summarize a paper, or run sem-search <query> or research <query>",
    "redo": "there is no draft; summarize a paper, or run sem-search <query> or research <query>",
}
_STATE_HINTS: dict[tuple[str, str], str] = {
    ("save", "summarized"): "the summary is already saved; improve <feedback> writes a new revision",
    ("summarize", "select-view"): "summarize adds a new paper from find results; to read a listed one use summary <n> or open <n>",
    ("list", "draft-research"): "the report's papers are the current results (summary <n>, open <n>); "
    "run sem-search <query> or find <query> first to leave the report",
}
_DRAFT_SUMMARY_HINT = "finish the draft summary first: save it (save) or discard it (abandon)"
# What to do when a guard fails: the command may run in this state, but not now.
_GUARD_FIXES: dict[str, str] = {
    "online": "search your library with sem-search <query>, or go online and try again",
    "fetchable": "that paper is not downloaded yet; pick one that is already in the library, or go online",
    "model_reachable": "the model is a remote endpoint (llm.backend = remote); set llm.backend = local "
    "to use the local model",
}


@dataclass
class WorkflowContext:
    """What the guards read. `state` is written by the state machine itself."""

    state: str | None = None  # the state name, e.g. "draft-summary"
    forced_offline: str | None = None  # why offline was asked for (--offline, config), or None
    remote_model: bool = False  # generation goes to a remote endpoint
    retry_seconds: float = 60.0  # after arXiv was unreachable, how long network commands stay disabled
    downloaded: list[bool] = field(default_factory=list)  # per result in last_query_set: already in the library?
    _detected_at: float | None = None  # time.monotonic() when arXiv was found unreachable
    _detected_detail: str = ""
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

    def mark_unreachable(self, detail: str) -> None:
        self._detected_at = self.clock()
        self._detected_detail = detail

    def mark_reachable(self) -> None:
        self._detected_at = None
        self._detected_detail = ""

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
    """Base of the generated machine: guards and the questions faces ask."""

    model: WorkflowContext

    # -- guards (side-effect free) --------------------------------------------------------

    def online(self) -> bool:
        return self.model.offline_reason() is None

    def model_reachable(self) -> bool:
        return not (self.model.remote_model and not self.online())

    def fetchable(self, downloaded: bool | None = None) -> bool:
        """A paper can be summarized: online, or it is already in the library."""
        if self.online():
            return True
        return bool(downloaded) if downloaded is not None else any(self.model.downloaded)

    def has_results(self, count: int = 1) -> bool:
        return count > 0

    # -- questions -------------------------------------------------------------------------

    @property
    def state(self) -> str:
        return str(self.current_state_value)

    def allows(self, command: str) -> bool:
        """The current state has a transition for `command` (guards not considered)."""
        eid = event_id(command)
        return any(str(e) == eid for e in self.allowed_events)

    def refusal(self, command: str, **context: Any) -> str | None:
        """None when `command` may run now; otherwise what is wrong and what would enable it."""
        state = self.state
        if not self.allows(command):
            if state == "draft-summary":
                hint = _DRAFT_SUMMARY_HINT
            else:
                hint = _STATE_HINTS.get((command, state)) or _ENABLE_HINTS.get(command, "")
            return f"{command} is not available in {state}: {hint}"
        eid = event_id(command)
        if any(str(e) == eid for e in self.enabled_events(**context)):
            return None
        failed = next((g for g in _rule_guards(command, state) if not _call_guard(self, g, context)), "online")
        reason = self.model.offline_reason() or "offline"
        return f"{command} is not available offline ({reason}): {_GUARD_FIXES[failed]}"

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

    def apply(self, command: str, **context: Any) -> tuple[str, str]:
        """Send the command's event; return (source, target) state names."""
        source = self.state
        self.send(event_id(command), **context)
        return source, self.state


def _rule_guards(command: str, state: str) -> tuple[str, ...]:
    for rule in RULES:
        if rule.command == command and state in rule.sources:
            return rule.guards
    return ()


def _call_guard(machine: WorkflowMachine, guard: str, context: dict[str, Any]) -> bool:
    method = getattr(machine, guard)
    accepted = inspect.signature(method).parameters
    return bool(method(**{k: v for k, v in context.items() if k in accepted}))


def _build_machine_class() -> type[WorkflowMachine]:
    states = {
        info.id: State(name=info.name, value=info.name, initial=info.name == "initial") for info in STATES
    }
    events: dict[str, Any] = {}
    for rule in RULES:
        guards = list(rule.guards)
        for source_name in rule.sources:
            source = states[source_name.replace("-", "_")]
            if rule.target == SAME:
                transitions = source.to.itself(internal=True, cond=guards or None)
            else:
                target = states[rule.target.replace("-", "_")]
                if rule.if_empty is None:
                    transitions = source.to(target, cond=guards or None)
                else:
                    empty = states[rule.if_empty.replace("-", "_")]
                    transitions = source.to(target, cond=guards + ["has_results"]) | source.to(
                        empty, cond=guards or None, unless="has_results"
                    )
            eid = event_id(rule.command)
            events[eid] = events[eid] | transitions if eid in events else transitions
    attrs: dict[str, Any] = dict(states)
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
