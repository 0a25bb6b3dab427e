"""The Desk's session and workflow state: move the workflow after a command's work, persist the
session after every transition (a full disk keeps it in memory until the next command), publish the
results, and resume the last session when the Desk opens."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from paperdesk.core.commands.parse import Command
from paperdesk.core.commands.session import Session
from paperdesk.core.commands.views import Outcome, ResultsChanged, ResultsView, StateChanged
from paperdesk.core.db.diskspace import is_disk_full

if TYPE_CHECKING:
    from paperdesk.core.desk.desk import Desk


class TransitionListener:
    """Receives python-statemachine's after_transition and hands it to the Desk."""

    def __init__(self, desk: "Desk") -> None:
        self._desk = desk

    def after_transition(self, event: Any, source: Any, target: Any) -> None:
        self._desk._transitioned(str(event).replace("_", "-"), source.value, target.value)


class SessionState:
    """Mixed into Desk: the workflow's moves and the session's persistence and resumption."""

    def transition(self, command: Command, **context: Any) -> None:
        """Move the workflow for a command that has done its work; persisted at once."""
        self.workflow.apply(command.name, **context, **self._guard_context(command))
        self._refresh_downloaded()
        self.persist_session()

    def persist_session(self) -> None:
        """Store the session now; on a full disk it stays in memory and the command's end tries again
        (and says so), so a command that only reads still works."""
        try:
            self._persist()
        except Exception as exc:
            if not is_disk_full(exc):
                raise

    def _transitioned(self, command: str, source: str, target: str) -> None:
        self.emit(StateChanged(source, target, command))

    def publish_results(self) -> None:
        self.emit(ResultsChanged(self.results_view()))

    def results_view(self, page: int = 1) -> ResultsView:
        s = self.session
        return ResultsView(s.results_kind, s.results_query, list(s.results), page)

    def _refresh_downloaded(self) -> None:
        self.context.downloaded = [r.in_library for r in self.session.results]
        draft = self.session.draft
        self.context.report_saved = bool(draft and draft.kind == "report" and draft.draft_id
                                         and self.drafts.is_saved(draft.draft_id))
        self._refresh_plan()

    def _refresh_plan(self) -> None:
        """The plan facts the plan guards read (pending revision, validity, network steps)."""
        from paperdesk.core.handlers.plans import plan_facts

        c = self.context
        c.plan_pending, c.plan_problem, c.plan_network = plan_facts(self)

    def _persist(self, history: tuple[str, str, str] | None = None) -> None:
        self.drafts.save_session(self.session.to_json(self.state), history)

    def _record(self, outcome: Outcome) -> None:
        summary = outcome.status if not outcome.message else f"{outcome.status}: {outcome.message.splitlines()[0][:200]}"
        self._persist((outcome.command, self.state, summary))

    def _resume(self) -> Session:
        data = self.drafts.load_session()
        if not data:
            return Session()
        state, session = Session.from_json(data)
        problem = self._resume_problem(state, session)
        if problem:
            self.notices.append(f"could not resume the last session ({problem}); starting fresh")
            self.context.state = None
            return Session()
        for item in session.results:
            item.in_library = item.in_library or self.paper_in_library(item.id)
        self.context.state = state
        if state and state != "initial":
            self.notices.append(f"resumed in {state}")
        return session

    def _resume_problem(self, state: str | None, session: Session) -> str | None:
        if state in ("draft-summary", "summarized"):
            if not session.selected or self.store.get_paper(session.selected) is None:
                return "the paper being summarized is no longer in the library"
        draft = session.draft
        if draft is not None and draft.paper_id and self.store.get_paper(draft.paper_id) is None:
            return "the summarized paper is gone"
        if draft is not None and draft.draft_id is not None and self.store.drafts.info(draft.draft_id) is None:
            return "its draft is gone"
        if draft is not None and draft.draft_id is None and not draft.paper_id:
            return "its draft is gone"
        return None
