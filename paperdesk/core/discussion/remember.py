"""What the discussion agents write to the memory graph, and what they read back.

Writes, per turn whose question passed the student's checks (a question the
model phrased is checked again against its passage, question_fit.py: one that
does not fit is not remembered at all): the paper, the question (with the
answer's key sentence, sourced to the cited page and the discussion turn, only
when that sentence passed the support check: a "not found" answer stores no
fact, only that the question was asked), the key terms the question and its
supported answer use (with the paper's own sentence using the term, and its
page), other papers it cited, and the relations between them. Reads: the
questions earlier discussions asked about the paper (and the topics of the
turns that asked them) and about the papers discussed with it, so the student
does not ask them first.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Sequence

from paperdesk.core.discussion.outline import Outline, mentions
from paperdesk.core.discussion.phrasing import worked_example
from paperdesk.core.discussion.question_fit import problems
from paperdesk.core.discussion.store import DiscussionStore
from paperdesk.core.discussion.types import Turn
from paperdesk.core.memory import Entity, MemoryGraph, Observation, Relation

NAME_CHARS = 200


@dataclass
class Earlier:
    """What earlier discussions asked, as the memory graph recorded it."""

    questions: list[str] = field(default_factory=list)  # asked about this paper
    related: list[str] = field(default_factory=list)  # asked about papers discussed with it
    turns: list[tuple[int, int]] = field(default_factory=list)  # (discussion, turn) that answered this paper's


def _asked_about(relations: list[Relation], paper_id: str) -> list[str]:
    return [r.source for r in relations if r.type == "asked about" and r.target.lower() == paper_id.lower()]


def earlier_questions(memory: MemoryGraph, paper_id: str, related_limit: int = 5) -> Earlier:
    """The questions earlier discussions asked about this paper and about the papers discussed with it."""
    graph = memory.open_nodes([paper_id])
    questions = _asked_about(graph.relations, paper_id)
    others = list(dict.fromkeys(r.target if r.source.lower() == paper_id.lower() else r.source
                                for r in graph.relations if r.type == "discussed with"))[:related_limit]
    related: list[str] = []
    if others:
        around = memory.open_nodes(others)
        related = [q for other in others for q in _asked_about(around.relations, other) if q not in questions]
    turns = [(o.discussion_id, o.turn) for e in memory.open_nodes(questions).entities for o in e.observations
             if o.discussion_id is not None and o.turn and o.paper_id == paper_id]
    return Earlier(questions, list(dict.fromkeys(related)), turns)


def earlier_targets(store: DiscussionStore, turns: list[tuple[int, int]]) -> list[str]:
    """The topics (section headings, terms) of the earlier turns memory points to: exact, however phrased."""
    wanted: dict[int, set[int]] = {}
    for did, n in turns:
        wanted.setdefault(did, set()).add(n)
    out: list[str] = []
    for did, ns in wanted.items():
        out += [t.topic.get("target", "") for t in store.turns(did) if t.n in ns]
    return list(dict.fromkeys(t for t in out if t))


def remember_turn(memory: MemoryGraph, outline: Outline, discussion_id: int, turn: Turn, library: Any,
                  passage: str = "", headings: Sequence[tuple[str, str]] = (),
                  paper_words: set[str] | None = None) -> bool:
    """Write the turn to the memory graph; False (nothing written) when its question does not fit the
    passage it was asked from (`passage`, for a question the model phrased: question_fit.problems)."""
    if turn.phrased and passage and problems(turn.question, passage, headings, paper_words, worked_example()):
        return False
    paper_id = outline.paper_id
    question = turn.question[:NAME_CHARS]
    first_page = turn.pages[0] if turn.pages else None
    # only a sentence whose cited passage supported it is a fact; an unchecked or unsupported answer stores none
    key = next((s for s in (turn.supported or []) if "[" in s), "")
    entities = [
        Entity(paper_id, "paper", [Observation(outline.title, paper_id=paper_id)]),
        Entity(question, "question"),
    ]
    relations = [Relation(question, paper_id, "asked about")]
    # the terms the question and the answer's supported sentences use (a "not found" quote is not the answer)
    said = " ".join([turn.question, *(turn.supported if turn.supported is not None else [turn.answer])])
    terms = [t for t in outline.terms if mentions(said, t.text)][:4]
    for t in terms:
        obs = [Observation(t.definition, paper_id=paper_id, page=t.page)] if t.definition else []
        entities.append(Entity(t.text, "term", obs))
        relations += [Relation(t.text, paper_id, "appears in"), Relation(question, t.text, "about")]
    for other in turn.literature:
        if other.startswith("arXiv:"):
            entities.append(Entity(other, "paper"))
        else:
            found = library.store.get_paper(other)
            entities.append(Entity(other, "paper", [Observation(found.title, paper_id=other)] if found else []))
        relations.append(Relation(paper_id, other, "discussed with"))
    memory.create_entities(entities)
    asked = f"Answered in discussion {discussion_id}, turn {turn.n}: {key}" if key else \
        f"Asked in discussion {discussion_id}, turn {turn.n}; the paper's passages did not answer it"
    memory.add_observations([
        (question, [Observation(asked, paper_id=paper_id, page=first_page if key else None,
                                discussion_id=discussion_id, turn=turn.n)]),
        *[(t.text, [Observation(t.definition, paper_id=paper_id, page=t.page)]) for t in terms if t.definition],
    ])
    memory.create_relations(relations)
    return True
