"""A discussion's records: one per finished turn, and the result of a run."""

from __future__ import annotations

import re
from dataclasses import asdict, dataclass, field
from typing import Any

LIBRARY_PAPER = re.compile(r"\(library paper (\S+)\)$")  # a cited work the library holds (literature.py)
REPEAT = 0.85  # cosine between two questions at which the second repeats the first (observer and student)


@dataclass
class Turn:
    n: int
    topic: dict[str, Any]  # the student's Topic as JSON: why this question was asked
    question: str
    answer: str
    citations: list[dict[str, Any]]
    sections: list[str]  # paper sections the answer drew on
    pages: list[int]  # pages of the paper the answer cites
    literature: list[str]  # other papers / arXiv ids the answer cites
    cited_share: float
    phrased: bool  # False: the student's template question was used
    insight: dict[str, Any] | None = None  # the observer's insights after this turn
    timings: dict[str, float] = field(default_factory=dict)
    supported: list[str] | None = None  # the answer's sentences their cited passage supports (None: not checked)
    not_found: bool = False  # no sentence was supported: the answer says so and quotes the closest passage
    question_check: str = ""  # why the template question was asked ("" when the model phrased it)
    works: list[str] = field(default_factory=list)  # works the cited passages cite ("[12] Lo et al. (2020): S2ORC")

    def to_json(self) -> dict[str, Any]:
        return {"n": self.n, "question": self.question, "answer": self.answer, "citations": self.citations,
                "insight": self.insight}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> "Turn":
        return cls(**data)

    def record(self) -> dict[str, Any]:
        return asdict(self)


@dataclass
class Event:
    """What `on_event` receives while a discussion runs.

    kind: start, question, token (role 'teacher'), answer, insight, turn (a turn is stored: progress
    `turn`/`total`), summary, done, interrupted.
    """

    kind: str
    discussion_id: int
    turn: int = 0
    total: int = 0
    role: str = ""
    text: str = ""
    data: dict[str, Any] = field(default_factory=dict)


@dataclass
class DiscussionResult:
    id: int
    paper_id: str
    title: str
    status: str  # running, interrupted, finished
    total: int
    every: int
    turns: list[Turn]
    summary: list[dict[str, Any]]
    timings: dict[str, float]

    @property
    def cancelled(self) -> bool:
        return self.status == "interrupted"

    def to_json(self) -> dict[str, Any]:
        return {"id": self.id, "paper_id": self.paper_id, "status": self.status, "turns_total": self.total,
                "every": self.every, "turns": [t.to_json() for t in self.turns], "summary": self.summary,
                "timings": {k: round(v, 3) for k, v in self.timings.items()}}

    @property
    def cited_papers(self) -> list[str]:
        """The paper discussed, then the other papers its answers cited and the library papers its cited
        passages cite (the draft's lqs)."""
        cited = [p for t in self.turns for p in t.literature if not p.startswith("arXiv:")]
        cited += [m.group(1) for t in self.turns for w in t.works if (m := LIBRARY_PAPER.search(w))]
        return list(dict.fromkeys([self.paper_id, *cited]))
