"""What the discussion agents write to the memory graph, and what they read back.

Writes, per turn: the paper, the question (with the answer's key sentence,
sourced to the cited page and the discussion turn), the key terms it touched
(with the paper's own sentence using the term, and its page), other papers it
cited, and the relations between them. Reads: the questions earlier
discussions asked about the paper, so the student does not ask them first.
"""

from __future__ import annotations

from paperdesk.core.discussion.outline import Outline, mentions
from paperdesk.core.discussion.teacher import sentences
from paperdesk.core.discussion.types import Turn
from paperdesk.core.memory import Entity, MemoryGraph, Observation, Relation

NAME_CHARS = 200


def earlier_questions(memory: MemoryGraph, paper_id: str) -> set[str]:
    """Lower-cased questions that earlier discussions asked about this paper."""
    graph = memory.open_nodes([paper_id])
    return {r.source.lower() for r in graph.relations if r.type == "asked about" and r.target.lower() == paper_id.lower()}


def remember_turn(memory: MemoryGraph, outline: Outline, discussion_id: int, turn: Turn, library) -> None:  # type: ignore[no-untyped-def]
    paper_id = outline.paper_id
    question = turn.question[:NAME_CHARS]
    first_page = turn.pages[0] if turn.pages else None
    key = next((s for s in sentences(turn.answer) if "[" in s), "") or " ".join(turn.answer.split()[:40])
    entities = [
        Entity(paper_id, "paper", [Observation(outline.title, paper_id=paper_id)]),
        Entity(question, "question"),
    ]
    relations = [Relation(question, paper_id, "asked about")]
    terms = [t for t in outline.terms if mentions(f"{turn.question} {turn.answer}", t.text)][:4]
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
    memory.add_observations([
        (question, [Observation(f"Answered in discussion {discussion_id}, turn {turn.n}: {key}", paper_id=paper_id,
                                page=first_page, discussion_id=discussion_id, turn=turn.n)]),
        *[(t.text, [Observation(t.definition, paper_id=paper_id, page=t.page)]) for t in terms if t.definition],
    ])
    memory.create_relations(relations)
