"""Discuss a paper: student, teacher and observer agents, and an annotated summary, offline.

API for wiring (Desk, workflow, TUI):

    from paperdesk.core.discussion import Discussion, Event, route
    from paperdesk.core.memory import MemoryGraph

    memory = MemoryGraph.for_library(library)             # or None: no memory reads/writes
    discussion = Discussion(library, backend, memory, arxiv=None)  # arxiv: an ArxivClient when online
    result = discussion.run(paper_id, turns=10, every=3, on_event=callback, cancel=token)
    result = discussion.resume()                          # newest unfinished; or resume(discussion_id)
    result = discussion.resume(paper_ref="2302.07302")    # newest unfinished of one paper
    markdown = discussion.markdown(result)                # the annotated summary as a draft
    result.to_json()   # {id, paper_id, status, turns: [{n, question, answer, citations, insight}],
                       #  summary: [{turn, question, answer, paper_context, literature, function, terms}], timings}
    result.cited_papers                                   # lqs for `summary` / `open` in draft-discussion
    result.status                                         # finished | interrupted (cancelled: resumable)

`callback(event)` runs on the worker thread for each Event: start, question (role student), token
(role teacher, streamed text), answer, insight (observer; data = {student: {...}, teacher: {...}}),
turn (stored; progress event.turn / event.total), summary (text = markdown), done, interrupted.
Cancelling the token stops the model within a token; the discussion is stored as interrupted and
`resume` continues from the last finished turn. A process killed at any moment resumes the same way.

Parts: outline.py (sections and key terms, computed), student.py (phrasing.py and question_fit.py check
its questions), teacher.py (truthful.py checks its sentences, named_papers.py says which other papers it may
read, passage_answer.py reads the paper again before "not found"), observer.py (insight_check.py checks its
statements, figures.py computes a discussion's figures from the stored turns), function.py (conversation
function by rules + exemplars), loop.py (router and loop), store.py (SQLite, owner "discussion"),
remember.py (memory-graph reads and writes).
"""

from paperdesk.core.discussion.loop import Discussion, route
from paperdesk.core.discussion.store import DiscussionStore, UnknownDiscussionError
from paperdesk.core.discussion.types import DiscussionResult, Event, Turn

__all__ = ["Discussion", "DiscussionResult", "DiscussionStore", "Event", "Turn", "UnknownDiscussionError", "route"]
