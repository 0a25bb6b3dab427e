"""The memory graph's values: entities with sourced observations, and typed relations."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from paperdesk.core.errors import PaperdeskError


class MemoryGraphError(PaperdeskError):
    """A memory-graph operation named something that does not exist or is malformed."""


@dataclass
class Observation:
    """One fact about an entity and where it came from: a paper page, or a discussion turn."""

    text: str
    paper_id: str | None = None
    page: int | None = None
    discussion_id: int | None = None
    turn: int | None = None
    created: float = 0.0

    @property
    def source(self) -> str:
        """Where the fact comes from, as a reader would cite it (paper and page first, never 'memory')."""
        parts = []
        if self.paper_id:
            parts.append(self.paper_id + (f", p. {self.page}" if self.page else ""))
        if self.discussion_id is not None:
            parts.append(f"discussion {self.discussion_id}" + (f" turn {self.turn}" if self.turn else ""))
        return "; ".join(parts)

    def to_json(self) -> dict[str, Any]:
        return {"text": self.text, "paper_id": self.paper_id, "page": self.page,
                "discussion_id": self.discussion_id, "turn": self.turn, "created": self.created}

    @classmethod
    def coerce(cls, value: "Observation | str | dict[str, Any]") -> "Observation":
        if isinstance(value, Observation):
            return value
        if isinstance(value, str):
            return cls(value)
        if isinstance(value, dict) and isinstance(value.get("text"), str):
            return cls(value["text"], value.get("paper_id"), value.get("page"), value.get("discussion_id"),
                       value.get("turn"), float(value.get("created") or 0.0))
        raise MemoryGraphError(f"not an observation: {value!r}; give text, or {{'text': ..., 'paper_id': ..., 'page': ...}}")


@dataclass
class Entity:
    name: str
    type: str
    observations: list[Observation] = field(default_factory=list)
    created: float = 0.0
    updated: float = 0.0
    score: float | None = None  # set by search_nodes

    def __post_init__(self) -> None:
        self.observations = [Observation.coerce(o) for o in self.observations]

    def to_json(self) -> dict[str, Any]:
        out = {"name": self.name, "type": self.type, "observations": [o.to_json() for o in self.observations],
               "created": self.created, "updated": self.updated}
        if self.score is not None:
            out["score"] = round(self.score, 5)
        return out

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> "Entity":
        """Accepts paperdesk's shape and the MCP memory server's (`entityType`, string observations)."""
        name, kind = data.get("name"), data.get("type") or data.get("entityType")
        if not isinstance(name, str) or not isinstance(kind, str):
            raise MemoryGraphError(f"an entity needs a name and a type: {data!r}")
        return cls(name, kind, [Observation.coerce(o) for o in data.get("observations", [])])


@dataclass(frozen=True)
class Relation:
    source: str  # entity name the relation starts from
    target: str
    type: str

    def to_json(self) -> dict[str, Any]:
        return {"from": self.source, "to": self.target, "type": self.type}


@dataclass
class Graph:
    """A part of the memory graph: entities and the relations that touch them."""

    entities: list[Entity]
    relations: list[Relation]

    def to_json(self) -> dict[str, Any]:
        return {"entities": [e.to_json() for e in self.entities], "relations": [r.to_json() for r in self.relations]}
