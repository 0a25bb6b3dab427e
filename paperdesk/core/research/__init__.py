"""Multi-step research: planner -> state tracker -> execution engine -> synthesizer.

Headless (no Textual). The API the faces wire to:

    from paperdesk.core.research import Researcher, load_backends, Tracker
    researcher = Researcher(library, load_backends(settings, writer=desk.backend), Tracker.for_library(library))

    plan = researcher.plan(question, dialogue="")          # Plan; plan.made_by = "model:<name>" or "rules"
    new, diff = researcher.revise(plan, feedback)           # proposal + PlanDiff (diff.lines() for the view);
                                                            # accept = keep `new`, reject = keep `plan`
    plan = plan_edit.add_step(plan, tool, text)             # step add / drop_step / edit_step / move_step:
    plan = plan_edit.drop_step(plan, n)                     #   each returns a NEW validated plan or raises
    plan = plan_edit.edit_step(plan, n, "field=value")      #   PlanError with the reason (old plan unchanged)
    plan = plan_edit.move_step(plan, n, m)
    text = plan_edit.to_toml(plan); plan = plan_edit.from_toml(edited, base=plan)   # `plan edit`
    result = researcher.run(plan, on_event, cancel)         # `build`; ResearchResult (.report markdown,
                                                            #   .citations, .sources, .steps, .timings, .to_json())
    result = researcher.research(question, on_event, cancel)  # agent / reader mode: plan + run
    result = researcher.resume(run_id, on_event, cancel)    # `research --resume`; tracker.unfinished() lists runs

`on_event(Event)` gets step_start / step_done / step_retry / step_failed / step_skipped / check / note /
cancelled events (step_id, status, message, seconds), kind "token" with `.text`: the report as it streams
(a section as its answer step finishes), and "answer_token": a sub-answer's words as the model writes them.
`cancel` is a core.cancel.CancelToken; setting it stops the run within ~10 ms (between and inside steps:
the step's tool gets its own token, which the model backends and the arXiv client check), raises
CancelledError, and leaves the run resumable. Every call accepts `dialogue` (the user's conversation) for prompts.
ResearchResult.text/.sources fit DeskStore.add_draft_revision for report drafts (improve/undo/redo/save).
"""

from __future__ import annotations

from typing import Any

from paperdesk.core.research import plan_edit
from paperdesk.core.research.engine import Event
from paperdesk.core.research.plan import Plan, PlanError, Step, validate
from paperdesk.core.research.planner import Planner, planner_model_path
from paperdesk.core.research.researcher import Backends, Researcher, ResearchResult
from paperdesk.core.research.tracker import Tracker


def load_backends(settings: Any, writer: Any = None, structure: Any = None) -> Backends:
    """The writer (given, or llm.* as today) and the planner: the structure model (given, or
    llm.structure_model / llm.planner_model, else the packaged SmolLM2).

    A remote endpoint serves both roles; with no structure model installed the writer plans too.
    Nothing is loaded here: local backends load their GGUF on first use.
    """
    from paperdesk.core.llm.factory import make_backend, make_structure_backend

    writer = writer if writer is not None else make_backend(settings)
    if structure is not None:
        name = getattr(getattr(structure, "model_path", None), "stem", "") or "remote"
        return Backends(writer, structure, "writer" if structure is writer else name)
    planner, name = make_structure_backend(settings, writer)
    return Backends(writer, planner, name)


__all__ = ["Researcher", "Backends", "ResearchResult", "Tracker", "Plan", "Step", "PlanError", "Event", "Planner",
           "plan_edit", "validate", "load_backends", "planner_model_path"]
