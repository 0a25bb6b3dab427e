"""The parts of plan mode both its commands (plans.py) and its runs (plan_runs.py) use: the desk's tracker and
Researcher, the run limits, the session's plan and its facts for the guards, and the plan as the faces show it."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from paperdesk.core.errors import PaperdeskError
from paperdesk.core.research import plan_edit
from paperdesk.core.research.plan import PENDING, TOOLS, Plan
from paperdesk.core.commands.views import PlanStepRow, PlanView

if TYPE_CHECKING:
    from paperdesk.core.desk.desk import Desk
    from paperdesk.core.research import Researcher, Tracker


def tracker(desk: "Desk") -> "Tracker":
    """The desk's research tracker (runs and steps), opened on first use; Desk.close closes it."""
    found = getattr(desk, "_plan_tracker", None)
    if found is None:
        from paperdesk.core.research import Tracker

        found = desk._plan_tracker = Tracker.for_library(desk.library)
    return found


def researcher(desk: "Desk") -> "Researcher":
    """The desk's Researcher, made on first use (tests may set `desk.research_backends` first)."""
    found = getattr(desk, "_researcher", None)
    if found is None:
        from paperdesk.core.research import Backends, Researcher

        backends = getattr(desk, "research_backends", None) or Backends(desk.backend, desk.structure_backend,
                                                                         desk.structure_name)
        found = desk._researcher = Researcher(desk.library, backends, tracker(desk), settings=desk.settings,
                                              memory=desk.memory if desk.settings["memory.recall"] else None)
    return found


def limits(desk: "Desk", offline: bool = False) -> dict[str, Any]:
    return {"max_steps": desk.settings["research.max_steps"], "max_iterations": desk.settings["research.max_iterations"],
            "offline": offline}


def current_plan(desk: "Desk") -> Plan:
    data = desk.session.plan
    if data is None:
        raise PaperdeskError("there is no plan; mode plan, then research <query> makes one")
    return Plan.from_json(data)


def plan_facts(desk: "Desk") -> tuple[bool, str | None, list[int]]:
    """(a revision is pending, why the plan is invalid or None, ids of steps needing the network) for the guards."""
    s = desk.session
    if s.plan is None:
        return False, "there is no plan", []
    try:
        plan = Plan.from_json(s.plan)
        from paperdesk.core.research.plan import validate

        validate(plan, **limits(desk))
    except PaperdeskError as exc:
        return s.plan_pending is not None, str(exc), []
    return s.plan_pending is not None, None, [st.id for st in plan.steps if TOOLS[st.tool].online]


def _dialogue(desk: "Desk") -> str:
    """The "User dialogue" block the dispatcher keeps, for the planner and the run's prompts."""
    return desk.dialogue_block()


def plan_view(desk: "Desk", plan: Plan, pending: Plan | None = None, statuses: dict[int, tuple] | None = None,
              run_id: int | None = None, toml: str = "", streaming: bool = False, upto: int | None = None,
              trace: list[str] | None = None) -> PlanView:
    """The plan as the faces show it; `statuses` (step id -> (status, seconds, error)) from a run, `trace` the
    agent loop's decisions in it."""
    if statuses is None and run_id is not None:
        statuses = {t.step_id: (t.status, t.seconds, t.error or "")
                    for t in tracker(desk).tasks(run_id) if t.iteration == -1}
    statuses = statuses or {}
    rows = []
    for step in plan.steps[:upto]:
        status, seconds, error = statuses.get(step.id, (PENDING, None, ""))
        rows.append(PlanStepRow(step.id, plan_edit.describe(step), step.description, status, seconds, error))
    diff = plan_edit.diff(plan, pending).lines() if pending is not None else []
    problem = plan_facts(desk)[1] if desk.session.plan == plan.to_json() else None
    return PlanView(plan.query, plan.made_by, rows, diff, problem or "", list(plan.notes), run_id,
                    desk.session.mode, toml, streaming, list(trace or []))
