"""PlanPane: the research plan, its pending revision as a red/green diff, live step status.

Keys while the pane has focus go through the workflow like typed commands
(the Desk refuses what the state or a guard does not allow, and says why):
a accept, r reject, b build, e plan edit, d drop the selected step, m move it
(prefills `step move N `), + adds the first arXiv find that agent mode offered (shown in the
footer only while there is one).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.message import Message
from textual.widgets import Label, Static

from paperdesk.tui.panes.plan_trace import add_trace

if TYPE_CHECKING:
    from paperdesk.core.commands.views import PlanView

ICONS = {"PENDING": "○", "IN_PROGRESS": "▶", "COMPLETED": "✓", "FAILED": "✗", "SKIPPED": "–"}
ICON_STYLE = {"PENDING": "dim", "IN_PROGRESS": "bold yellow", "COMPLETED": "bold green", "FAILED": "bold red",
              "SKIPPED": "dim"}
DIFF_STYLE = {"removed": "red", "added": "green", "changed": "yellow", "moved": "yellow"}
EMPTY = ("No plan yet. `mode plan`, then `research <query>` shows the plan here for review;\n"
         "in agent or reader mode the steps of a running research show here live.")
KEYS = "a accept · r reject · b build · e edit · d drop · m move · ↑/↓ step"
OFFER_KEY = " · + add the arXiv find"  # shown only while agent mode offers one


class PlanPane(Vertical, can_focus=True):
    BINDINGS = [
        Binding("a", "command('accept')", "Accept", id="plan_accept"),
        Binding("r", "command('reject')", "Reject", id="plan_reject"),
        Binding("b", "command('build')", "Build", id="plan_build"),
        Binding("e", "command('plan edit')", "Edit plan", id="plan_edit"),
        Binding("d", "drop", "Drop step", id="plan_drop"),
        Binding("m", "move", "Move step", id="plan_move"),
        Binding("plus", "add_offer", "Add arXiv find", id="plan_add", key_display="+"),
        Binding("up", "select(-1)", "Previous step", show=False),
        Binding("down", "select(1)", "Next step", show=False),
    ]

    class Run(Message):
        """Run a command line (the app submits it like a typed one)."""

        def __init__(self, line: str, prefill: bool = False) -> None:
            super().__init__()
            self.line, self.prefill = line, prefill

    def __init__(self, **kwargs) -> None:
        super().__init__(**kwargs)
        self.view: PlanView | None = None
        self.selected = 0
        self.offers: list[tuple[str, str]] = []
        self.activity = ""

    def compose(self) -> ComposeResult:
        yield Label("no plan", id="plan-header")
        with VerticalScroll(id="plan-scroll"):
            yield Static(EMPTY, id="plan-body")
        yield Label(KEYS, id="plan-footer")

    # -- showing ------------------------------------------------------------------------------

    def show(self, view: "PlanView", activity: str = "") -> None:
        self.view = view
        self.activity = activity
        self.selected = min(self.selected, max(len(view.steps) - 1, 0))
        self._render_plan()
        self.refresh_bindings()  # the keys the workflow allows change with the plan

    def clear_plan(self) -> None:
        self.view = None
        self.query_one("#plan-header", Label).update("no plan")
        self.query_one("#plan-body", Static).update(EMPTY)

    def set_offers(self, offers: list[tuple[str, str]]) -> None:
        self.offers = list(offers)
        self.query_one("#plan-footer", Label).update(KEYS + (OFFER_KEY if self.offers else ""))
        self._render_plan()
        self.refresh_bindings()  # + shows in the footer while there is a find to add

    def _render_plan(self) -> None:
        view = self.view
        if view is None:
            return
        self.border_title = f"Plan · {view.mode} mode"
        run = f" · run {view.run_id}" if view.run_id else ""
        state = " · planning …" if view.streaming else (" · revision pending" if view.pending else "")
        self.query_one("#plan-header", Label).update(f"made by {view.made_by}{run}{state} · {view.query}")
        body = Text(no_wrap=False)
        for i, row in enumerate(view.steps):
            mark = "❯ " if i == self.selected and self.has_focus else "  "
            body.append(mark)
            body.append(f"{ICONS.get(row.status, '?')} ", style=ICON_STYLE.get(row.status, ""))
            body.append(row.line, style="bold" if i == self.selected else "")
            if row.seconds is not None:
                body.append(f"  {row.seconds:.1f} s", style="dim")
            body.append(f"\n      {row.description}\n", style="dim")
            if row.error:
                body.append(f"      {row.status.lower()}: {row.error}\n", style="red")
        add_trace(body, view.trace)
        if view.diff:
            body.append("\nPending revision (a accept · r reject):\n", style="bold")
            for kind, line in view.diff:
                body.append(f"  {line}\n", style=DIFF_STYLE.get(kind, ""))
        if view.problem:
            body.append(f"\ncannot build: {view.problem}\n", style="bold red")
        for note in view.notes:
            body.append(f"\nnote: {note}", style="dim")
        if self.offers:
            body.append("\n\nNew on arXiv (+ adds the first):\n", style="bold")
            for arxiv_id, title in self.offers:
                body.append(f"  {arxiv_id}  {title}\n")
        if self.activity:
            body.append(f"\n{self.activity}", style="italic")
        self.query_one("#plan-body", Static).update(body)

    def on_focus(self) -> None:
        self._render_plan()

    def on_blur(self) -> None:
        self._render_plan()

    # -- keys ---------------------------------------------------------------------------------

    _COMMANDS = {"drop": "step", "move": "step", "add_offer": ""}

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """Dim the keys the workflow refuses now (accept without a revision, build after the run ...)."""
        command = str(parameters[0]).split()[0] if action == "command" and parameters else self._COMMANDS.get(action)
        desk = getattr(self.app, "desk", None)
        if action == "add_offer":
            return True if self.offers else False  # hidden, not dimmed, when agent mode offered nothing
        if not command or desk is None:
            return True
        return None if desk.workflow.refusal(command) else True

    def _step_id(self) -> int | None:
        if self.view is None or not self.view.steps:
            return None
        return self.view.steps[self.selected].id

    def action_select(self, delta: int) -> None:
        if self.view and self.view.steps:
            self.selected = (self.selected + delta) % len(self.view.steps)
            self._render_plan()

    def action_command(self, line: str) -> None:
        self.post_message(self.Run(line))

    def action_drop(self) -> None:
        """d: drop the selected step, once the user says yes (a dropped step's edits are gone)."""
        step = self._step_id()
        if step is None or self.view is None:
            return
        from paperdesk.tui.screens.confirm import ConfirmScreen

        row = self.view.steps[self.selected]

        def answered(yes: bool | None) -> None:
            if yes:
                self.post_message(self.Run(f"step drop {step}"))

        self.app.push_screen(ConfirmScreen(f"Drop step {step} ({row.line}) from the plan?"), answered)

    def action_move(self) -> None:
        step = self._step_id()
        if step is not None:
            self.post_message(self.Run(f"step move {step} ", prefill=True))

    def action_add_offer(self) -> None:
        if self.offers:
            from paperdesk.core.commands.registry import SPECS

            # `add` adds an arXiv id in one go; without it, find shows the paper to summarize
            verb = "add" if "add" in SPECS else "find"
            arxiv_id = self.offers[0][0]
            self.set_offers(self.offers[1:])  # the next find becomes the first: + again adds that one
            self.post_message(self.Run(f"{verb} {arxiv_id}"))
