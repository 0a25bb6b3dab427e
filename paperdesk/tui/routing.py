"""OutcomeRouter: turns Desk events and command outcomes into pane updates (on the UI thread only)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable

from textual.widgets import TabbedContent

from paperdesk.tui.keyboard import focus_now
from paperdesk.tui.panes.draft import DraftPane
from paperdesk.tui.panes.notes import NotesPane
from paperdesk.tui.panes.results import ResultsPane

if TYPE_CHECKING:
    from paperdesk.core.desk.desk import Desk
    from paperdesk.core.commands.views import Outcome
    from paperdesk.tui.app import PaperDeskApp



class OutcomeRouter:
    def __init__(self, app: "PaperDeskApp") -> None:
        self.app = app
        self._followed: str | None = None  # the paper last opened in the reader or highlighted in the list

    def _pane(self, kind: type | str) -> Any:
        """A pane by class, or by id for the hidden tabs' panes (their modules load after the first paint)."""
        return self.app.main.query_one(kind)

    def _tab(self, tab: str) -> None:
        self.app.main.query_one(TabbedContent).active = tab
        self.app.reveal("draft")  # narrow terminals: the tabs take the screen

    # -- startup: show what the resumed session holds --------------------------------------------

    def restore(self, desk: "Desk") -> None:
        if desk.session.results:
            self.results(desk.results_view())
        view = desk.draft_view()
        if view is not None:
            self._pane(DraftPane).show(view)
            if view.kind == "discussion" and view.revision is not None:
                self._pane("#discussion").show_summary(view)
                self._tab("tab-discussion")
        reader = desk.session.reader
        if reader is not None:  # the last page read, behind the draft
            self._pane("#reader").load_page(reader[0], reader[1], reveal=False)
        self._restore_plan(desk)
        self.refresh_reports()
        self.sync()

    # -- events ----------------------------------------------------------------------------------

    def event(self, event: Any) -> None:
        from paperdesk.core.commands import views
        from paperdesk.core.dispatch.talk import Understood  # the dispatcher loads after the first paint

        app = self.app
        if isinstance(event, views.ProgressUpdated):
            app.status_bar.progress(event.progress)
        elif isinstance(event, views.TokenStreamed):  # the status bar counts the model's own tokens (its meter)
            self._pane(DraftPane).append(event.text)
        elif isinstance(event, views.GenerationStarted):
            self._pane(DraftPane).start_stream(event.kind, event.title)
            self._tab("tab-draft")
            app.status_bar.set_activity(f"writing the {event.kind} · Esc stops")
        elif isinstance(event, views.StateChanged):
            app.refresh_bindings()
            draft = self._pane(DraftPane)
            if app.desk is not None and app.desk.session.draft is None and not draft.streaming:
                draft.clear_draft()  # find, list, abandon ... leave no draft: the pane says so too
            self.sync()
        elif isinstance(event, views.ResultsChanged):
            self.results(event.view)
        elif isinstance(event, views.DiscussionProgress):  # turn by turn, "turn 4/10" in the status bar
            pane = self._pane("#discussion")
            pane.event(event)
            if event.kind == "start":
                self._tab("tab-discussion")
            if event.kind in ("start", "question", "answer", "insight") or (
                    event.kind == "token" and len(pane.answer) < 40):
                app.status_bar.set_activity(pane.progress_line())
        elif isinstance(event, views.CommandStarted):
            app.status_bar.set_running(True)
            app.status_bar.set_activity(f"running {event.command}")
        elif isinstance(event, views.CommandFinished):
            self.finished(event.outcome)
        elif isinstance(event, views.PlanUpdated):  # live step status, the plan streaming in
            self._pane("#plan").show(event.view, event.message)
            if event.view.streaming or app.main.query_one(TabbedContent).active != "tab-draft":
                self._tab("tab-plan")
            if event.message:
                app.status_bar.set_activity(event.message + " · Esc stops")
        elif isinstance(event, views.AgentActed):
            self._pane("#plan").set_offers(event.offers)
            if event.page is not None:
                self._page(event.page)
        elif isinstance(event, Understood):  # a message's decision, shown before it runs
            app.command_line.understood(f"understood as {event.line}", interrupting=event.interrupting)

    def results(self, view: Any) -> None:
        from paperdesk.core.commands.registry import enter_command

        desk = self.app.desk
        natural = (enter_command(desk.state) if desk else None) or ""
        pane = self._pane(ResultsPane)
        if view.items:
            pane.show(view, f"{natural} <n>" if natural else "")
            self.app.reveal("results")
        else:
            pane.clear_results("no results: find <query>, list, or sem-search <query>")

    def sync(self) -> None:
        """Status bar and notes from the desk's state variables."""
        desk = self.app.desk
        if desk is None:
            return
        status = desk.status()
        selected = status.selected if len(status.selected) <= 48 else status.selected[:47] + "…"
        self.app.status_bar.set_workflow(status.state, selected, status.mode)
        self.sync_notes()

    def follow_notes(self, paper_id: str | None) -> None:
        """The paper opened in the reader or highlighted in the list: the Notes pane shows its notes."""
        self._followed = paper_id
        self.sync_notes()

    def sync_notes(self) -> None:
        """Notes of the paper being summarized; when viewing, of the paper last opened or highlighted."""
        desk = self.app.desk
        if desk is None:
            return
        editable = desk.workflow.refusal("notes") is None
        paper = None
        if desk.state in ("draft-summary", "summarized"):
            paper = desk.selected_paper()
        elif editable:
            paper = desk.store.get_paper(self._followed) if self._followed else None
            if paper is None:
                from paperdesk.core.handlers.new_paper import notes_paper

                paper = notes_paper(desk)
        notes = self._pane(NotesPane)
        if paper is None:
            if notes.paper_id is not None:
                notes.load(None, "", "", False)
        elif paper.id != notes.paper_id or notes.editor.read_only == editable:
            notes.load(paper.id, paper.title, desk.notes(paper.id), editable)

    def refresh_reports(self) -> None:
        desk = self.app.desk
        if desk is not None:
            self._pane("#reports").set_reports(desk.drafts.reports())

    # -- a command's outcome -------------------------------------------------------------------------

    def views(self) -> dict[type, Callable[[Any], None]]:
        """One way to show each view of views.VIEWS; a test checks that none is missing."""
        from paperdesk.core.commands import views

        return {
            views.ResultsView: self.results,
            views.DraftView: self._draft,
            views.PageView: self._page,
            views.NotesView: self._notes,
            views.HelpView: self._help,
            # a screen of its own: as a toast the command line hid its last lines
            views.StatusView: lambda view: self._text("Status (Esc closes)", view),
            views.HistoryView: lambda view: self._text("History (Esc closes)", view),
            views.DialogueView: lambda view: self._text("Dialogue (Esc closes)", view),
            views.LinesView: lambda view: self._text(f"{view.title} (Esc closes)", view),
            views.PlanView: self._plan,
            views.MemoryView: lambda view: self.memory_screen(view.query, view),
        }

    # -- the Plan pane ----------------------------------------------------------------------

    def _plan(self, view: Any) -> None:
        self._pane("#plan").show(view)
        self._tab("tab-plan")
        if view.toml:  # plan edit: the plan as TOML in an editable text area
            from paperdesk.core.commands.parse import Command
            from paperdesk.tui.screens.plan_edit import PlanEditScreen

            def edited(text: str | None) -> None:
                if text is None:
                    self.app.command_line.say("plan edit: nothing changed")
                else:
                    self.app.submit_command(Command("plan", text="edit\n" + text, raw="plan edit"))

            desk = self.app.desk

            def check(text: str) -> str | None:
                from paperdesk.core.handlers.plans import edit_problem

                return edit_problem(desk, text) if desk is not None else None

            self.app.push_screen(PlanEditScreen(view.toml, check), edited)

    def _restore_plan(self, desk: "Desk") -> None:
        """On start: an unbuilt plan reopens in the Plan pane; an unfinished run is resumed or offered."""
        from paperdesk.core.handlers import plans

        pane = self._pane("#plan")
        if desk.session.plan is not None:
            try:
                pane.show(plans.session_view(desk))
            except Exception:  # noqa: BLE001 - a damaged stored plan must not stop the start
                return
            if desk.state == "draft-plan":
                self._tab("tab-plan")
        from paperdesk.core.handlers import plan_runs

        # a killed run is resumed at once (app.on_desk_ready) unless a discussion goes on first; else say so
        if plan_runs.killed_run(desk) is None or self.unfinished_discussion(desk):
            note = plan_runs.resume_notice(desk)
            if note:
                desk.notices.append(note)

    def killed_research(self, desk: "Desk") -> bool:
        """A research run a killed process left unfinished, to resume on start (like a discussion)."""
        from paperdesk.core.handlers.plan_runs import killed_run

        return killed_run(desk) is not None

    def _draft(self, view: Any) -> None:
        self._pane(DraftPane).show(view)
        if view.kind == "discussion":  # the annotated summary belongs in the Discussion pane
            self._pane("#discussion").show_summary(view)
            self._tab("tab-discussion")
            return
        self._tab("tab-draft")

    # -- the memory graph and unfinished discussions -------------------------------------

    def memory_screen(self, query: str, view: Any = None) -> None:
        """The Memory screen over the desk's graph; a fact's page, when chosen, opens in the Reader."""
        from paperdesk.core.memory.types import Graph
        from paperdesk.tui.screens.memory import MemoryScreen

        desk = self.app.desk
        if desk is None:
            return

        def search(text: str) -> tuple[Graph, int]:
            return desk.memory.search_nodes(text, k=30), desk.memory.count()

        graph = Graph(list(view.entities), list(view.relations)) if view is not None else None

        def opened(choice: tuple[str, int, str] | None) -> None:
            if choice is not None:
                self._pane("#reader").load_page(choice[0], choice[1], choice[2])

        def titles(ids: list[str]) -> dict[str, str]:
            return {pid: paper.title for pid, paper in desk.store.papers_by_ids(ids).items() if paper.title}

        self.app.push_screen(MemoryScreen(search, query, graph, view.total if view is not None else 0, titles), opened)

    def unfinished_discussion(self, desk: "Desk") -> int | None:
        from paperdesk.core.handlers.discussion import unfinished_discussion

        return unfinished_discussion(desk)

    def _page(self, view: Any) -> None:
        self._pane("#reader").show_page(view.paper_id, view.title, view.page, view.pages, view.text, view.highlight)
        self._tab("tab-reader")
        self.follow_notes(view.paper_id)

    def _notes(self, view: Any) -> None:
        self._pane(NotesPane).load(view.paper_id, view.title, view.text, True)
        if not view.appended:
            focus_now(self.app.main.query_one("#notes-text"))

    def _text(self, title: str, view: Any) -> None:
        from paperdesk.text_views import render
        from paperdesk.tui.screens.text import TextScreen

        self.app.push_screen(TextScreen(title, render(view)))

    def finished(self, outcome: "Outcome") -> None:
        app = self.app
        if outcome.view is not None:
            self.views()[type(outcome.view)](outcome.view)
        if outcome.command.split(" ", 1)[0] in ("save", "abandon", "undo", "redo"):
            self.refresh_reports()
        kind = {"ok": "info", "cancelled": "info"}.get(outcome.status, "error")
        prefix = "" if outcome.status == "ok" else f"{outcome.status}: "
        app.command_line.say(prefix + outcome.message if outcome.message or prefix else "", kind)
        app.status_bar.set_running(False)
        app.status_bar.set_activity("cancelled" if outcome.status == "cancelled" else "")
        app.command_line.interruption_over()
        self.sync()
        app.command_finished()
        if outcome.quit:
            app.call_later(app.action_quit)
        if outcome.confirm:  # free text that would discard work: the desk asks first
            app.talk.ask_first(outcome.confirm)

    def show_readonly(self, outcome: "Outcome") -> None:
        """A read-only command's answer while another command runs: shown, and nothing else changes."""
        if outcome.view is not None:
            self.views()[type(outcome.view)](outcome.view)
        if outcome.status != "ok":
            self.app.command_line.say(f"{outcome.status}: {outcome.message} (the running work goes on)", "error")
        elif outcome.message:
            self.app.command_line.say(outcome.message)
    def beside(self, outcome: "Outcome") -> None:
        """A message answered while a command runs: show it, and leave the running command alone."""
        if outcome.view is not None:
            self.views()[type(outcome.view)](outcome.view)
        kind = {"ok": "info", "cancelled": "info"}.get(outcome.status, "error")
        prefix = "" if outcome.status == "ok" else f"{outcome.status}: "
        self.app.command_line.say(prefix + outcome.message, kind)
        if outcome.confirm:  # asked beside the running work: nothing stops unless the answer is yes
            self.app.talk.ask_first(outcome.confirm)

    def _help(self, view: Any) -> None:
        from paperdesk.tui.screens.help import HelpScreen

        app = self.app
        keys = []
        for binding in app.BINDINGS:
            key = app.keymap.get(binding.id or "", binding.key_display or binding.key)
            keys.append((key, binding.description))
        keys.append(("Enter (on a result)", "the natural command: summarize, or open"))
        keys.append(("ctrl+p", "command palette: commands valid now, papers in the results, themes"))
        state = self.app.desk.state if self.app.desk else ""
        app.push_screen(HelpScreen(view.rows, keys, state))
