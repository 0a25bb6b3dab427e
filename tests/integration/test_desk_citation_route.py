"""The citation route at the Desk: "what does [2] say" is answered from that passage (with its
neighbours in the paper when it is short), not from a fresh search, below the answer it refers to.

Real library (a fixture PDF ingested with tantivy and MiniLM), real SQLite; the text comes from FakeLLM
because what is checked is which passages the answer is written from (orchestration), not its prose.
"""

import pytest

from fake_llm import FakeLLM
from paperdesk.core.desk.desk import Desk
from paperdesk.core.dispatch.talk import Understood
from settings_for import settings_for

pytestmark = pytest.mark.slow


def test_a_question_about_a_citation_uses_the_cited_chunk_and_its_neighbours(tmp_home, arxiv, embedder,
                                                                                citesee_pdf):
    desk = Desk(settings_for(tmp_home, arxiv.api_url), backend=FakeLLM(), embedder=embedder)
    try:
        seen = []
        desk.subscribe(lambda e: seen.append(e) if isinstance(e, Understood) else None)
        assert desk.run(f"add {citesee_pdf}").ok and desk.run("save").ok  # add writes a summary draft
        first = desk.run("sem-search how do readers keep track of citations")
        assert first.ok and desk.session.draft.kind == "answer"
        sources = desk.drafts.current_draft(desk.session.draft.draft_id).sources
        assert len(sources) >= 2
        cited = sources[1]  # [2]
        chunks = desk.store.chunks_of(cited["paper_id"])
        at = next(i for i, c in enumerate(chunks) if c.id == cited["chunk_id"])
        expected = [chunks[at].id] + [chunks[i].id for i in (at - 1, at + 1) if 0 <= i < len(chunks)]
        # a search for the same words would rank other passages first: the route must not search
        searched = [h.chunk_id for h in desk.library.search("what does it say", k=5)]
        assert searched != expected

        backend = desk.backend
        asked = len(backend.requests)
        draft_id = desk.session.draft.draft_id
        outcome = desk.run("what does [2] say?")
        decision = seen[-1].decision
        assert decision.route == "citation" and decision.scope["chunk_id"] == cited["chunk_id"], decision.to_json()
        assert outcome.ok, outcome.message
        assert desk.session.draft.draft_id == draft_id  # kept with the answer it asks about
        [request] = backend.requests[asked:]
        prompt = request.prompt or "\n".join(m["content"] for m in request.messages)
        words, shown = chunks[at].text.split(), " ".join(prompt.split())
        assert any(" ".join(words[i:i + 8]) in shown for i in range(len(words) - 8))  # written from [2]'s text
        assert "what does [2]" not in shown  # the writer's numbers are its own: [2] is its passage [1]
        used = {s["n"]: s for s in desk.drafts.current_draft(draft_id).sources}
        assert used[2]["chunk_id"] == cited["chunk_id"]
        assert {s["chunk_id"] for s in used.values()} <= {s["chunk_id"] for s in sources} | set(expected)
    finally:
        desk.close()
