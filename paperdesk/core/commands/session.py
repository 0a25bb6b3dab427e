"""The workflow's state variables (spec: last_query_set, selected_paper, draft), as persisted.

A `Session` round-trips through JSON so that quitting (or being killed) in
any state and starting again resumes there with the same results, selection
and draft.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from paperdesk.core.sources.arxiv import ArxivPaper
    from paperdesk.core.db.store import Paper


@dataclass
class ResultItem:
    """One entry of last_query_set: a paper on arXiv or in the library."""

    id: str  # library paper id, or arXiv short id for find results
    title: str
    authors: list[str] = field(default_factory=list)
    year: int | None = None
    in_library: bool = False
    detail: str = ""  # e.g. the pages a search hit came from
    arxiv: dict[str, Any] | None = None  # the arXiv record, so summarize needs no second lookup

    @classmethod
    def from_arxiv(cls, paper: "ArxivPaper", in_library: bool) -> "ResultItem":
        return cls(paper.short_id, paper.title, list(paper.authors), paper.year, in_library, arxiv=asdict(paper))

    @classmethod
    def from_paper(cls, paper: "Paper", detail: str = "") -> "ResultItem":
        year = None
        if paper.published and paper.published[:4].isdigit():
            year = int(paper.published[:4])
        return cls(paper.id, paper.title, list(paper.authors), year, True, detail)

    def arxiv_paper(self) -> "ArxivPaper | None":
        from paperdesk.core.sources.arxiv import ArxivPaper

        return ArxivPaper(**self.arxiv) if self.arxiv else None


@dataclass
class DraftRef:
    """What `draft` points at: a paper's summary revisions, or an answer/report draft."""

    kind: str  # "summary", "answer" (sem-search) or "report" (research)
    paper_id: str | None = None  # summary
    draft_id: int | None = None  # answer / report
    query: str = ""
    base_revision: int | None = None  # summary: the revision that was current before this summarize
    added_paper: bool = False  # summary: this summarize added the paper (abandon removes it)
    discussion_id: int | None = None  # discussion: its row in the discussions table (resume continues it)


@dataclass
class Session:
    results: list[ResultItem] = field(default_factory=list)  # last_query_set
    results_kind: str = ""  # "find", "list", "sem-search", "research"
    results_query: str = ""
    list_filter: str = ""  # a library list's arguments (`--tag to-read --sort year`): a refresh keeps them
    selected: str | None = None  # selected_paper (a library id)
    draft: DraftRef | None = None
    reader: tuple[str, int] | None = None  # (paper id, page) last opened
    dialogue: list[dict[str, Any]] = field(default_factory=list)  # dispatch.Dialogue turns (JSON) since the last act
    # The research mode and the plan under review (spec "New state variables")
    mode: str = "agent"  # plan, agent or reader
    plan: dict[str, Any] | None = None  # the current plan (Plan.to_json); kept after leaving draft-plan
    plan_pending: dict[str, Any] | None = None  # a proposed revision waiting for accept / reject
    plan_run: int | None = None  # the research run that built the plan (None: the plan is not built yet)
    plan_created: float = 0.0  # when the plan was made (research --resume reopens the newest plan or run)

    def clear_results(self) -> None:
        self.results, self.results_kind, self.results_query, self.list_filter = [], "", "", ""

    def to_json(self, state: str) -> dict[str, Any]:
        return {
            "state": state,
            "results": [asdict(r) for r in self.results],
            "results_kind": self.results_kind,
            "results_query": self.results_query,
            "list_filter": self.list_filter,
            "selected": self.selected,
            "draft": asdict(self.draft) if self.draft else None,
            "reader": list(self.reader) if self.reader else None,
            "dialogue": list(self.dialogue),
            "mode": self.mode, "plan": self.plan, "plan_pending": self.plan_pending, "plan_run": self.plan_run,
            "plan_created": self.plan_created,
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> tuple[str | None, "Session"]:
        """(state, session) from stored JSON; anything malformed gives a fresh session."""
        try:
            session = cls(
                results=[ResultItem(**r) for r in data.get("results") or []],
                results_kind=str(data.get("results_kind") or ""),
                results_query=str(data.get("results_query") or ""),
                list_filter=str(data.get("list_filter") or ""),
                selected=data.get("selected"),
                draft=DraftRef(**data["draft"]) if data.get("draft") else None,
                reader=(str(data["reader"][0]), int(data["reader"][1])) if data.get("reader") else None,
                dialogue=[turn for turn in data.get("dialogue") or [] if isinstance(turn, dict)],
                mode=data.get("mode") if data.get("mode") in ("plan", "agent", "reader") else "agent",
                plan=data.get("plan") if isinstance(data.get("plan"), dict) else None,
                plan_pending=data.get("plan_pending") if isinstance(data.get("plan_pending"), dict) else None,
                plan_run=int(data["plan_run"]) if data.get("plan_run") is not None else None,
                plan_created=float(data.get("plan_created") or 0.0),
            )
            state = data.get("state")
            return (state if isinstance(state, str) else None), session
        except (TypeError, ValueError, KeyError, IndexError):
            return None, cls()
