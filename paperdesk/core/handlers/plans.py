"""Research by mode and plan review (spec "Extensions beyond the seed").

`research` in plan mode stops at the plan (state draft-plan); `revise` proposes a
revision shown as a diff, `accept` / `reject` settle it, `step ...` and
`plan edit` edit the plan directly (validated: an invalid edit changes nothing),
`build` runs it. Agent and reader mode plan and run straight through; agent mode
then acts (research/agent_actions.py). The plan and the mode live in the session,
so they survive a quit or a kill -9; runs and their steps live in the tracker,
so `research --resume` finishes a killed run without redoing its steps.
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING

from paperdesk.core.commands.parse import Command, CommandError
from paperdesk.core.errors import PaperdeskError
from paperdesk.core.handlers.plan_parts import (  # noqa: F401  (the faces and tests import these from here)
    _dialogue, current_plan, limits, plan_facts, plan_view, researcher, tracker)
from paperdesk.core.research import plan_edit
from paperdesk.core.research.plan import TOOLS, Plan
from paperdesk.core.commands.views import Outcome, PlanUpdated, PlanView
from paperdesk.core.progress import counted

if TYPE_CHECKING:
    from paperdesk.core.desk.desk import Desk

MODES = ("plan", "agent", "reader")
_REVIEW = "review it: revise <feedback>, step add|drop|edit|move, plan edit; then build (or abandon)"


def session_view(desk: "Desk", toml: str = "") -> PlanView:
    s = desk.session
    pending = Plan.from_json(s.plan_pending) if s.plan_pending else None
    return plan_view(desk, current_plan(desk), pending, run_id=s.plan_run, toml=toml)


def _keep(desk: "Desk", command: Command, plan: Plan) -> None:
    desk.session.plan = plan.to_json()
    desk.transition(command)


# -- mode -----------------------------------------------------------------------------------


def mode(desk: "Desk", command: Command) -> Outcome:
    wanted = command.text.strip().lower()
    if not wanted:
        return Outcome(command.raw, "ok", f"mode: {desk.session.mode} (mode plan|agent|reader changes it)")
    if wanted not in MODES:
        raise CommandError(f"mode: unknown mode {wanted!r}; use mode plan, mode agent or mode reader")
    desk.session.mode = wanted
    desk.transition(command)
    what = {"plan": "research <query> stops at the plan for review; build runs it",
            "agent": "research <query> runs straight through, then opens the most-cited page",
            "reader": "research <query> runs straight through and shows citations only"}[wanted]
    return Outcome(command.raw, "ok", f"mode: {wanted}: {what}")


# -- research -------------------------------------------------------------------------------


def research(desk: "Desk", command: Command) -> Outcome:
    text = command.text.strip()
    if text == "--resume":
        return _resume(desk, command)
    if text.split()[0] == "--resume":
        return _resume_run(desk, command, text.split()[1:])
    if text.startswith("--"):
        raise CommandError(f"research: unknown option {text.split()[0]!r}; use research <query> or research --resume")
    if desk.session.mode == "plan":
        return _plan_only(desk, command)
    return run(desk, command, text)


def _plan_only(desk: "Desk", command: Command) -> Outcome:
    plan = researcher(desk).plan(command.text, _dialogue(desk), desk.cancel_token)
    for n in range(1, len(plan.steps) + 1):  # the plan streams into the Plan pane step by step
        desk.emit(PlanUpdated(plan_view(desk, plan, streaming=n < len(plan.steps), upto=n),
                              f"planning: step {n} of {len(plan.steps)}"))
    s = desk.session
    s.plan, s.plan_pending, s.plan_run, s.plan_created = plan.to_json(), None, None, time.time()
    s.clear_results()
    s.selected, s.draft = None, None
    desk.transition(command, count=1, planning=True)
    desk.publish_results()
    return Outcome(command.raw, "ok", f"plan of {counted(len(plan.steps), 'step')}, made by {plan.made_by}; {_REVIEW}",
                   session_view(desk))


def _resume(desk: "Desk", command: Command) -> Outcome:
    s = desk.session
    runs = tracker(desk).unfinished()
    newest_run = runs[0] if runs else None
    unbuilt = s.plan is not None and s.plan_run is None
    if unbuilt and (newest_run is None or s.plan_created >= newest_run.created):
        desk.transition(command, count=1, planning=True)
        return Outcome(command.raw, "ok", f"reopened the plan for {current_plan(desk).query!r}; {_REVIEW}",
                       session_view(desk))
    if newest_run is None:
        raise PaperdeskError("nothing to resume: no unbuilt plan and no unfinished research run; "
                             "research <query> starts one")
    return run(desk, command, newest_run.query, run_id=newest_run.id)


def _resume_run(desk: "Desk", command: Command, words: list[str]) -> Outcome:
    """`research --resume N`: resume the unfinished run numbered N (the numbers `research --resume` and the
    Reports pane show)."""
    runs = tracker(desk).unfinished()
    known = ", ".join(str(r.id) for r in runs) or "none"
    if len(words) != 1 or not words[0].isdigit():
        raise CommandError(f"research --resume takes one run number, got {' '.join(words)!r}; unfinished runs: "
                           f"{known} (research --resume alone resumes the newest)")
    wanted = next((r for r in runs if r.id == int(words[0])), None)
    if wanted is None:
        raise CommandError(f"research: no unfinished run {words[0]}; unfinished runs: {known}")
    return run(desk, command, wanted.query, run_id=wanted.id)


def build(desk: "Desk", command: Command) -> Outcome:
    plan = current_plan(desk)
    return run(desk, command, plan.query, plan=plan)


# -- reviewing the plan -----------------------------------------------------------------------


def plan_(desk: "Desk", command: Command) -> Outcome:
    text = command.text
    word = text.split(None, 1)[0] if text.strip() else ""
    if not word:
        view = session_view(desk)
        pending = "; a revision is pending: accept or reject" if view.pending else ""
        return Outcome(command.raw, "ok", f"plan for {view.query!r} (made by {view.made_by}){pending}", view)
    if word != "edit":
        raise CommandError(f"plan: unknown argument {word!r} (usage: plan, or plan edit)")
    if desk.state != "draft-plan":
        raise PaperdeskError("plan edit changes a plan under review; this plan has been built (research "
                             "<query> in plan mode makes a new one)")
    if desk.session.plan_pending is not None:
        raise PaperdeskError("plan edit is not available now: a revision is pending; accept or reject it first")
    plan = current_plan(desk)
    edited = text.split("\n", 1)[1] if "\n" in text else None
    if edited is None:  # no text given: hand the faces the TOML to edit
        return Outcome(command.raw, "ok", "the plan as TOML: edit it and run plan edit with the edited text "
                                          "(the shell opens $EDITOR, the TUI an editor)",
                       session_view(desk, toml=plan_edit.to_toml(plan)))
    new = plan_edit.from_toml(edited, base=plan, **limits(desk))
    changes = plan_edit.diff(plan, new)
    if changes.empty:
        return Outcome(command.raw, "ok", "plan edit: nothing changed", session_view(desk))
    _keep(desk, command, new)
    return Outcome(command.raw, "ok", f"plan edited: {counted(len(changes.lines()), 'change')}", session_view(desk))


def edit_problem(desk: "Desk", edited: str) -> str | None:
    """Why `plan edit` would refuse this edited TOML (with TOML's own line and column), or None when it
    would take it; changes nothing, so an editor can stay open on the text and say what to fix."""
    try:
        plan_edit.from_toml(edited, base=current_plan(desk), **limits(desk))
    except PaperdeskError as exc:
        return str(exc)
    return None


def revise(desk: "Desk", command: Command) -> Outcome:
    plan = current_plan(desk)
    new, changes = researcher(desk).revise(plan, command.text, _dialogue(desk))
    if changes.empty:
        raise PaperdeskError("that feedback changes nothing in the plan; say what to add or drop "
                             "(e.g. revise also compare the datasets)")
    desk.session.plan_pending = new.to_json()
    desk.transition(command)
    return Outcome(command.raw, "ok",
                   f"revision proposed ({counted(len(changes.lines()), 'change')}): accept or reject",
                   session_view(desk))


def accept(desk: "Desk", command: Command) -> Outcome:
    s = desk.session
    s.plan, s.plan_pending = s.plan_pending, None
    desk.transition(command)
    return Outcome(command.raw, "ok", "revision accepted: it is the plan now; build runs it", session_view(desk))


def reject(desk: "Desk", command: Command) -> Outcome:
    desk.session.plan_pending = None
    desk.transition(command)
    return Outcome(command.raw, "ok", "revision rejected: the previous plan stands", session_view(desk))


_STEP_USAGE = "step add <tool> <text> | step drop N | step edit N field=value | step move N M"


def step(desk: "Desk", command: Command) -> Outcome:
    words = command.text.split()
    verb, args = (words[0].lower(), words[1:]) if words else ("", [])
    plan = current_plan(desk)
    lim = limits(desk)
    if verb == "add" and len(args) >= 2:
        new = plan_edit.add_step(plan, args[0], " ".join(args[1:]), **lim)
    elif verb == "drop" and len(args) == 1:
        new = plan_edit.drop_step(plan, _number(args[0]), **lim)
    elif verb == "edit" and len(args) >= 2:
        new = plan_edit.edit_step(plan, _number(args[0]), command.text.split(None, 2)[2], **lim)
    elif verb == "move" and len(args) == 2:
        new = plan_edit.move_step(plan, _number(args[0]), _number(args[1]), **lim)
    else:
        raise CommandError(f"step: cannot read {command.text!r} (usage: {_STEP_USAGE}; tools: {', '.join(TOOLS)})")
    _keep(desk, command, new)
    return Outcome(command.raw, "ok", f"step {verb}: the plan has {counted(len(new.steps), 'step')}", session_view(desk))


def _number(text: str) -> int:
    if not text.isdigit():
        raise CommandError(f"step: {text!r} is not a step number (usage: {_STEP_USAGE})")
    return int(text)


def abandon(desk: "Desk", command: Command) -> Outcome:
    if desk.state != "draft-plan":
        from paperdesk.core.handlers import new_paper

        return new_paper.abandon(desk, command)
    s = desk.session
    query = (s.plan or {}).get("query", "")
    s.plan, s.plan_pending, s.plan_run = None, None, None
    desk.transition(command)
    return Outcome(command.raw, "ok", f"abandoned: the plan for {query!r} is discarded")



def run(desk: "Desk", command: Command, query: str, plan: Plan | None = None, run_id: int | None = None) -> Outcome:
    """Plan (unless given) and run, or resume run `run_id` (handlers/plan_runs.py)."""
    from paperdesk.core.handlers import plan_runs

    return plan_runs.run(desk, command, query, plan, run_id)
