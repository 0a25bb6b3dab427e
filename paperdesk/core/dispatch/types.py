"""The dispatcher's inputs and output: what the desk knows now, and what a message was understood as.

Everything here is plain data that round-trips through JSON, so the same
context can come from a live Desk, the saved session (`paperdesk route`) or a
labelled dev-set line.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

ACTIONS = ("navigate", "delegate", "answer", "clarify")
ROUTES = ("citation", "direct-paper", "simple", "complex")


@dataclass(frozen=True)
class PaperRef:
    """A paper the session can name: a result row, a library paper, the reader's paper."""

    id: str
    title: str = ""


@dataclass(frozen=True)
class Citation:
    """One numbered source of the current draft ([n] in its text)."""

    n: int
    paper_id: str
    title: str = ""
    page: int | None = None
    chunk_id: int | None = None  # the cited passage (the citation route answers from it and its neighbours)


@dataclass
class DispatchContext:
    """What the dispatcher may resolve a message against; every field may be empty."""

    state: str = "initial"
    results: list[PaperRef] = field(default_factory=list)  # last_query_set, 1-based in commands
    results_kind: str = ""  # find, list, sem-search, research
    selected: PaperRef | None = None
    reader: tuple[str, int] | None = None  # (paper id, page) open in the reader
    draft_kind: str | None = None  # summary, answer, report (None: no draft)
    citations: list[Citation] = field(default_factory=list)
    history: list[str] = field(default_factory=list)  # command lines, oldest first
    library: list[PaperRef] = field(default_factory=list)
    dialogue: Any = None  # a Dialogue, or None
    resumable: str | None = None  # the query of the newest unfinished research run (research --resume finishes it)
    interrupted: str | None = None  # the last command line, when it was cancelled (interrupted) rather than done

    def paper_title(self, paper_id: str) -> str:
        for ref in [*self.results, *self.library, *([self.selected] if self.selected else [])]:
            if ref.id == paper_id:
                return ref.title
        return ""

    def to_json(self) -> dict[str, Any]:
        return {
            "state": self.state,
            "results": [asdict(r) for r in self.results],
            "results_kind": self.results_kind,
            "selected": asdict(self.selected) if self.selected else None,
            "reader": list(self.reader) if self.reader else None,
            "draft": {"kind": self.draft_kind, "citations": [asdict(c) for c in self.citations]}
            if self.draft_kind else None,
            "history": list(self.history),
            "library": [asdict(r) for r in self.library],
            "dialogue": self.dialogue.to_json() if self.dialogue is not None else None,
            "resumable": self.resumable,
            "interrupted": self.interrupted,
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> "DispatchContext":
        """The inverse of to_json; unknown keys are ignored, missing ones are empty."""
        from paperdesk.core.dispatch.dialogue import Dialogue

        def refs(items: Any) -> list[PaperRef]:
            return [PaperRef(str(r["id"]), str(r.get("title", ""))) for r in items or []]

        draft = data.get("draft") or {}
        selected = data.get("selected")
        if isinstance(selected, str):
            selected = {"id": selected}
        reader = data.get("reader")
        return cls(
            state=str(data.get("state") or "initial"),
            results=refs(data.get("results")),
            results_kind=str(data.get("results_kind") or ""),
            selected=PaperRef(str(selected["id"]), str(selected.get("title", ""))) if selected else None,
            reader=(str(reader[0]), int(reader[1])) if reader else None,
            draft_kind=draft.get("kind") if draft else None,
            citations=[Citation(int(c["n"]), str(c["paper_id"]), str(c.get("title", "")), c.get("page"),
                                c.get("chunk_id"))
                       for c in draft.get("citations") or []],
            history=[str(h) for h in data.get("history") or []],
            library=refs(data.get("library")),
            dialogue=Dialogue.from_json(data["dialogue"]) if data.get("dialogue") else None,
            resumable=str(data["resumable"]) if data.get("resumable") else None,
            interrupted=str(data["interrupted"]) if data.get("interrupted") else None,
        )


@dataclass
class Decision:
    """What a message was understood as. `command` is a command line the desk can run as typed.

    `scope` narrows an answer: {"paper_ids": [...]} for direct-paper,
    {"citation": n, "paper_ids": [...], "page": p} for citation. `question` is
    the clarifying question (action clarify). `stage` says which layer decided
    (rule, exemplar, model, fallback) so the bench can time each.
    """

    action: str
    command: str | None
    route: str | None
    confidence: float
    reason: str
    question: str | None = None
    scope: dict[str, Any] | None = None
    stage: str = "rule"

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "action": self.action,
            "command": self.command,
            "route": self.route,
            "confidence": round(self.confidence, 3),
            "reason": self.reason,
        }
        if self.question:
            out["question"] = self.question
        if self.scope:
            out["scope"] = self.scope
        out["stage"] = self.stage
        return out

    def line(self) -> str:
        """The one line a face shows before running it, e.g. `-> find table extraction (delegate, 0.93)`."""
        if self.action == "clarify":
            return f"? {self.question or self.reason} (clarify, {self.confidence:.2f})"
        what = self.action if self.route is None else f"{self.action}: {self.route}"
        return f"-> {self.command} ({what}, {self.confidence:.2f})"
