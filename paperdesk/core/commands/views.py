"""What a Desk command produces (an `Outcome` holding a view) and the events it emits meanwhile.

Faces render these: the shell as plain text, the TUI in its panes. Nothing
here knows how it will be drawn. The views form a closed set (`VIEWS`): an
Outcome refuses anything else, and each face keeps one renderer per view,
checked by a test, so a new view that a face does not handle fails a test
instead of showing nothing.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from paperdesk.core.progress import Progress
from paperdesk.core.commands.session import ResultItem
from paperdesk.core.commands.workflow import Availability

PER_PAGE = 20


# -- views ------------------------------------------------------------------------------


@dataclass(frozen=True)
class ResultsView:
    """last_query_set, one page of it."""

    kind: str  # "find", "list", "sem-search", "research"
    query: str
    items: list[ResultItem]
    page: int = 1
    per_page: int = PER_PAGE

    @property
    def pages(self) -> int:
        return max(1, -(-len(self.items) // self.per_page))

    @property
    def start(self) -> int:
        """Index (0-based) of the page's first item."""
        return (self.page - 1) * self.per_page

    @property
    def page_items(self) -> list[tuple[int, ResultItem]]:
        """(1-based result number, item) on this page."""
        chunk = self.items[self.start : self.start + self.per_page]
        return list(enumerate(chunk, start=self.start + 1))


@dataclass(frozen=True)
class DraftView:
    """A summary, sem-search answer or research report, at one revision."""

    kind: str  # "summary", "answer", "report"
    title: str
    text: str
    revision: int | None
    status: str  # draft, final, interrupted
    sources: list[dict[str, Any]] = field(default_factory=list)
    query: str = ""
    paper_id: str | None = None

    @property
    def label(self) -> str:
        if self.revision is None:
            return f"{self.kind} (no revision yet)"
        extra = f", {self.status}" if self.status in ("interrupted", "final") else ""
        return f"{self.kind} (revision {self.revision}{extra})"


@dataclass(frozen=True)
class PageView:
    paper_id: str
    title: str
    page: int
    pages: int
    text: str
    highlight: str = ""  # a passage on this page to highlight (a citation's quote, a find's words)


@dataclass(frozen=True)
class NotesView:
    paper_id: str
    title: str
    text: str
    appended: bool = False


@dataclass(frozen=True)
class HelpView:
    rows: list[Availability]
    topic: str = ""  # one command's help, or all


@dataclass(frozen=True)
class StatusView:
    state: str
    selected: str  # "none" or "<id>  <title>"
    results: int
    draft: str  # "none" or DraftView.label
    mode: str  # the network: "online" or "offline (<reason>)"
    research_mode: str = "agent"  # plan, agent or reader (the `mode` state variable)
    dialogue: int = 0  # user messages in the dialogue since the last act

    def lines(self) -> list[str]:
        return [f"state: {self.state}", f"selected: {self.selected}", f"results: {self.results}",
                f"draft: {self.draft}", f"mode: {self.research_mode}", f"network: {self.mode}",
                f"dialogue: {self.dialogue} message{'' if self.dialogue == 1 else 's'}"]


@dataclass(frozen=True)
class HistoryView:
    rows: list[tuple[str, str, str, float]]  # command, state, outcome, time


@dataclass(frozen=True)
class DialogueView:
    """The dialogue since the last act: (speaker, text) turns, "user" or "dispatcher"."""

    turns: list[tuple[str, str]]


# A titled block of lines (import's report, tags), shown in a text window or printed.
@dataclass(frozen=True)
class LinesView:
    title: str
    lines: list[str]



# The research plan under review, its pending diff and its steps' status.
@dataclass(frozen=True)
class PlanStepRow:
    id: int
    line: str  # plan_edit.describe(step)
    description: str
    status: str  # PENDING, IN_PROGRESS, COMPLETED, FAILED, SKIPPED
    seconds: float | None = None
    error: str = ""


@dataclass(frozen=True)
class PlanView:
    """The plan (`plan`, `research` in plan mode, `revise`, `step ...`, a run's progress)."""

    query: str
    made_by: str
    steps: list[PlanStepRow]
    diff: list[tuple[str, str]] = field(default_factory=list)  # pending revision: (removed|added|changed|moved, line)
    problem: str = ""  # why the plan cannot be built as it is
    notes: list[str] = field(default_factory=list)
    run_id: int | None = None
    mode: str = "plan"
    toml: str = ""  # set by `plan edit` without a text: the plan to edit
    streaming: bool = False  # steps are still arriving
    trace: list[str] = field(default_factory=list)  # the agent loop's decisions in a run, one line each

    @property
    def pending(self) -> bool:
        return bool(self.diff)


# The memory graph's nodes, as `memory [query]` shows them.
@dataclass(frozen=True)
class MemoryView:
    """Memory-graph entities matching a query (newest first without one), with the relations touching them."""

    query: str
    entities: list[Any]  # memory.types.Entity, each with its sourced observations
    relations: list[Any]  # memory.types.Relation
    total: int = 0  # entities in the whole graph


View = (ResultsView | DraftView | PageView | NotesView | HelpView | StatusView | HistoryView | DialogueView
        | LinesView | PlanView | MemoryView)
VIEWS: tuple[type, ...] = (ResultsView, DraftView, PageView, NotesView, HelpView, StatusView, HistoryView,
                           DialogueView, LinesView, PlanView, MemoryView)


@dataclass
class Outcome:
    """The result of one command line."""

    command: str
    status: str  # "ok", "refused", "error", "cancelled"
    message: str = ""
    view: View | None = None
    quit: bool = False
    confirm: str = ""  # a yes/no question: nothing ran; the next message (yes, or anything else) answers it

    def __post_init__(self) -> None:
        if self.view is not None and not isinstance(self.view, VIEWS):
            raise TypeError(f"{type(self.view).__name__} is not a view every face renders; add it to views.VIEWS")

    @property
    def ok(self) -> bool:
        return self.status == "ok"


# -- events -------------------------------------------------------------------------------


@dataclass(frozen=True)
class CommandStarted:
    command: str


@dataclass(frozen=True)
class ProgressUpdated:
    progress: Progress


@dataclass(frozen=True)
class GenerationStarted:
    kind: str  # "summary", "answer", "report"
    title: str


@dataclass(frozen=True)
class TokenStreamed:
    text: str
    tokens: int
    tokens_per_s: float


@dataclass(frozen=True)
class StateChanged:
    source: str
    target: str
    command: str


@dataclass(frozen=True)
class ResultsChanged:
    view: ResultsView


@dataclass(frozen=True)
class DiscussionProgress:
    """One step of a running discussion: kind is the discussion Event's (start, question, token,
    answer, insight, turn, summary, done, interrupted); `turn` of `total` is the turn in progress."""

    kind: str
    discussion_id: int
    turn: int
    total: int
    role: str = ""
    text: str = ""
    data: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class CommandFinished:
    outcome: Outcome


@dataclass(frozen=True)
class PlanUpdated:
    """the plan streamed one more step, or a step of a running plan changed status."""

    view: PlanView
    message: str = ""  # a one-line progress note for the status bar ("step 2/3 read_paper: done 1.2 s")


@dataclass(frozen=True)
class AgentActed:
    """agent mode acted after a report: opened a cited page, offers arXiv finds to add."""

    page: PageView | None
    offers: list[tuple[str, str]] = field(default_factory=list)  # (arXiv id, title) found by arxiv_search


def short_title(title: str, limit: int = 50) -> str:
    """A title cut at a word boundary to at most `limit` characters, marked with ' ...'."""
    title = " ".join(title.split())
    if len(title) <= limit:
        return title
    cut = title[: limit + 1].rsplit(" ", 1)[0].rstrip(" ,;:")
    return cut + " ..."
