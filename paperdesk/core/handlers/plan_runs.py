"""Running research for `research` (agent / reader mode), `build` and `research --resume`.

The run's events become the Plan pane's live step status (PlanUpdated), the status bar's progress
per step (ProgressUpdated) and the streamed report; the report becomes a report draft revision
(improve / undo / redo / save work), results = the cited papers, and agent mode then acts.
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Any

from paperdesk.core.commands.parse import Command
from paperdesk.core.errors import CancelledError
from paperdesk.core.handlers.plan_parts import _dialogue, plan_view, researcher, tracker
from paperdesk.core.progress import Progress
from paperdesk.core.research.plan import COMPLETED, FAILED, IN_PROGRESS, SKIPPED, Plan
from paperdesk.core.research.synthesizer import counts_line
from paperdesk.core.commands.session import DraftRef, ResultItem
from paperdesk.core.commands.views import AgentActed, Outcome, PlanUpdated, ProgressUpdated
from paperdesk.core.progress import counted

if TYPE_CHECKING:
    from paperdesk.core.desk.desk import Desk
    from paperdesk.core.research import ResearchResult

_STATUS_OF = {"step_start": IN_PROGRESS, "step_retry": IN_PROGRESS, "step_done": COMPLETED,
              "step_failed": FAILED, "step_skipped": SKIPPED}
ANSWER_TOKENS_SHOWN = 8  # a status line every 8 tokens of a sub-answer: live, without flooding the faces
_WORDS = {IN_PROGRESS: "running", COMPLETED: "done", FAILED: "failed", SKIPPED: "skipped"}


def run(desk: "Desk", command: Command, query: str, plan: Plan | None = None, run_id: int | None = None
         ) -> Outcome:
    """Plan (unless given) and run; the report becomes a draft revision, lqs the cited papers."""
    progress = _Progress(desk, query)
    try:
        result = _execute(desk, command, query, progress, plan, run_id)
    except CancelledError:  # the Plan pane shows where the run stopped; the tracker keeps it resumable
        runs = tracker(desk).unfinished()
        if runs and progress.plan is not None:
            desk.emit(PlanUpdated(plan_view(desk, progress.plan, run_id=runs[0].id),
                                  f"cancelled: research --resume finishes run {runs[0].id}"))
        raise
    return _finish(desk, command, result, progress)


def _execute(desk: "Desk", command: Command, query: str, progress: "_Progress", plan: Plan | None,
             run_id: int | None) -> "ResearchResult":
    r = researcher(desk)
    if run_id is not None:
        row = r.tracker.run(run_id)
        progress.plan, progress.mode = row.plan, row.mode or progress.mode  # a resumed run keeps its mode
        result = r.resume(run_id, progress, desk.cancel_token, _dialogue(desk))
    else:
        plan_s = None
        if plan is None:
            started = time.perf_counter()
            plan = r.plan(query, _dialogue(desk), desk.cancel_token)
            plan_s = time.perf_counter() - started
        progress.plan = plan
        desk.emit(PlanUpdated(plan_view(desk, plan), f"running {counted(len(plan.steps), 'step')}"))
        result = r.run(plan, progress, desk.cancel_token, _dialogue(desk), mode=progress.mode)
        if plan_s is not None:
            result.timings["plan_s"] = plan_s
    return result


class _Progress:
    """Research events -> Plan pane (PlanUpdated), status bar (ProgressUpdated) and the streamed report."""

    def __init__(self, desk: "Desk", query: str) -> None:
        self.desk, self.query = desk, query
        self.mode = desk.session.mode  # the research mode the run goes by: the session's, or a resumed run's own
        self.plan: Plan | None = None
        self.statuses: dict[int, tuple[str, float | None, str]] = {}
        self.on_token: Any = None
        self.running: int | None = None  # the step now running (its answer's words are counted)
        self.words = 0
        self.trace: list[str] = []  # the agent loop's decisions, shown under the steps

    def view(self) -> Any:
        assert self.plan is not None
        return plan_view(self.desk, self.plan, statuses=dict(self.statuses), trace=self.trace)

    def __call__(self, event: Any) -> None:
        desk = self.desk
        if event.kind == "token":  # the report itself, a section as soon as its step has finished
            if self.on_token is None:
                self.on_token = desk.token_stream("report", self.query)
            self.on_token(event.text)
            return
        if event.kind == "answer_token":  # a sub-answer being written: its progress, in the status bar
            self.words += 1
            if self.words % ANSWER_TOKENS_SHOWN == 1 and self.plan is not None and self.running is not None:
                done = sum(1 for st, _, _ in self.statuses.values() if st in (COMPLETED, FAILED, SKIPPED))
                desk.emit(ProgressUpdated(Progress(f"research step {self.running}/{len(self.plan.steps)} answer: "
                                                   f"writing, {self.words} tokens", done, len(self.plan.steps),
                                                   "steps")))
            return
        if event.kind == "loop":  # the agent loop chose a call, or done, or a limit stopped it
            if event.status != IN_PROGRESS:  # a call starting is progress, not a decision
                self.trace.append(event.message)
            if self.plan is not None:
                desk.emit(PlanUpdated(self.view(), event.message))
            return
        if event.kind == "step_start":
            self.running, self.words = event.step_id, 0
        status = _STATUS_OF.get(event.kind)
        if status is None or self.plan is None or event.step_id is None or event.iteration != -1:
            if event.message:
                desk.emit(PlanUpdated(self.view(), event.message)
                          if self.plan else ProgressUpdated(Progress(event.message[:60], 0, None)))
            return
        self.statuses[event.step_id] = (status, event.seconds, event.message if status == FAILED else "")
        done = sum(1 for st, _, _ in self.statuses.values() if st in (COMPLETED, FAILED, SKIPPED))
        total = len(self.plan.steps)
        tool = next((st.tool for st in self.plan.steps if st.id == event.step_id), "")
        word = _WORDS[status] + (f" in {event.seconds:.1f} s" if event.seconds is not None else "")
        line = f"step {event.step_id}/{total} {tool}: {word}"
        desk.emit(ProgressUpdated(Progress(f"research {line}", done, total, "steps")))
        # a retry says why the step runs again (a timeout: the limit that stopped it, and that less evidence follows)
        desk.emit(PlanUpdated(self.view(), event.message if event.kind == "step_retry" and event.message else line))


def _finish(desk: "Desk", command: Command, result: "ResearchResult", progress: _Progress) -> Outcome:
    s = desk.session
    draft_id = desk.drafts.new_draft("report", result.plan.query)
    # the draft's sources are the report's [n] citations, so the faces map [n] -> (paper, page, chunk)
    sources = [{**c, "cited": True} for c in result.citations]
    revision = desk.drafts.add_draft_revision(draft_id, result.report, sources, "draft")
    s.selected = None
    s.draft = DraftRef("report", draft_id=draft_id, query=result.plan.query)
    s.plan, s.plan_pending, s.plan_run = result.plan.to_json(), None, result.run_id
    cited = list(dict.fromkeys(c["paper_id"] for c in result.citations))
    pages: dict[str, list[int]] = {}
    for c in result.citations:
        pages.setdefault(c["paper_id"], []).append(int(c["page"]))
    papers = desk.store.papers_by_ids(cited)
    s.results = [ResultItem.from_paper(papers[pid], _pages(pages[pid])) for pid in cited if pid in papers]
    s.results_kind, s.results_query = "research", result.plan.query
    desk.transition(command, count=len(s.results))
    desk.publish_results()
    if result.run_id is not None:
        desk.emit(PlanUpdated(plan_view(desk, result.plan, run_id=result.run_id,
                                        trace=[t.line() for t in result.trace]), "research finished"))
    note = (f"revision {revision.revision}; {counts_line(result.plan, result.steps)}; cites "
            f"{counted(len(result.citations), 'passage')} in {result.timings.get('total_s', 0.0):.1f} s")
    if result.plan.dropped:
        note += f"; dropped: {'; '.join(d['question'] for d in result.plan.dropped)}"
    if result.unanswered:
        note += f"; unanswered: {'; '.join(result.unanswered)}"
    if result.failed:  # the report is built from the other steps and names these in "Steps that failed"
        note += "; " + "; ".join(f"step {f['id']} ({f['tool']}) {f['status']}" for f in result.failed)
    if result.fallback:
        note += "; no plan could be made, so one library search wrote it (see the report's note)"
    if progress.mode == "agent":
        note += _act(desk, result)
    return Outcome(command.raw, "ok", note, desk.draft_view())


def _pages(pages: list[int]) -> str:
    unique = sorted(set(pages))
    return ("p. " if len(unique) == 1 else "pp. ") + ", ".join(map(str, unique)) if unique else ""


def _act(desk: "Desk", result: "ResearchResult") -> str:
    """Agent mode: open the most-cited paper at the cited page (passage highlighted); offer arXiv finds."""
    from paperdesk.core.research.agent_actions import arxiv_offers, cited_page

    page = cited_page(desk.store, result.citations)
    offers = arxiv_offers(tracker(desk), result, store=desk.store)  # not the papers the library has
    if page is None and not offers:
        return ""
    desk.session.reader = (page.paper_id, page.page) if page else desk.session.reader
    desk.drafts.save_session(desk.session.to_json(desk.state))
    desk.emit(AgentActed(page, offers))
    parts = []
    if page is not None:
        parts.append(f"opened {page.paper_id} at page {page.page} (most cited)")
    if offers:
        parts.append(f"arXiv found {counted(len(offers), 'new paper')}: add {offers[0][0]} adds the first "
                     "(+ in the Plan pane)")
    return "; " + "; ".join(parts)


# -- on start: a run the last process left unfinished -------------------------------------------


def resumable(desk: "Desk") -> Any:
    """The run `research --resume` would finish now (a tracker RunRow): the newest unfinished one,
    unless a newer unbuilt plan is under review (then `research --resume` reopens that plan)."""
    runs = tracker(desk).unfinished()
    if not runs:
        return None
    s = desk.session
    if s.plan is not None and s.plan_run is None and s.plan_created >= runs[0].created:
        return None
    return runs[0]


def killed_run(desk: "Desk") -> Any:
    """The run a killed process left IN_PROGRESS, when `research --resume` may run now: the TUI resumes it
    on start (as it goes on with a discussion). A run the user cancelled waits for research --resume."""
    run = resumable(desk)
    if run is None or run.status != IN_PROGRESS or desk.workflow.refusal("research") is not None:
        return None
    return run


def resume_notice(desk: "Desk") -> str | None:
    """What the faces say on start about an unfinished research run (None when there is none)."""
    runs = tracker(desk).unfinished()
    if not runs:
        return None
    run = resumable(desk)
    if run is None:
        return (f"research run {runs[0].id} ({runs[0].query!r}) did not finish: build or abandon the plan "
                "under review, then research --resume finishes it")
    return (f"research run {run.id} ({run.query!r}) did not finish: research --resume finishes it "
            "without redoing its steps")
