"""The discussion end to end with the real default GGUF (shared session model), small N and K."""

from __future__ import annotations

import pytest

from conftest import PAPERS
from paperdesk.core.discussion import Discussion
from paperdesk.core.discussion.function import FUNCTIONS
from paperdesk.core.discussion.teacher import ANY_CITE, sentences
from paperdesk.core.memory import MemoryGraph

pytestmark = pytest.mark.slow


def test_real_model_discussion_is_grounded_annotated_and_remembered(library, local_backend):
    paper = library.add_pdf(PAPERS / "2304.02623v1.pdf").paper
    memory = MemoryGraph.for_library(library)
    tokens: list[str] = []
    shown: dict[int, str] = {}

    def seen(event) -> None:
        if event.kind == "token":
            tokens.append(event.text)
            shown[event.turn] = shown.get(event.turn, "") + event.text

    discussion = Discussion(library, local_backend, memory, question_tokens=20, answer_tokens=40)
    result = discussion.run(paper.id, turns=2, every=1, on_event=seen)
    assert result.status == "finished" and [t.n for t in result.turns] == [1, 2]
    assert tokens, "the teacher's answer streams"
    pages = range(1, paper.page_count + 1)
    for turn in result.turns:
        assert turn.question.endswith("?") and len(turn.answer.split()) >= 5
        # every citation the answer keeps was checked against the paper's pages and passages
        assert turn.citations and all(c["page"] in pages for c in turn.citations if c["kind"] == "paper")
        assert any(c["label"] in turn.answer for c in turn.citations)
        # what the reader saw is what was stored, and every sentence of it cites the passage that supports it
        assert " ".join(shown[turn.n].split()) == " ".join(turn.answer.split())
        assert all(ANY_CITE.search(s) for s in sentences(turn.answer)), turn.answer
        assert turn.not_found or turn.supported
    assert result.turns[0].insight is not None and result.turns[0].insight["teacher"]["text"]
    assert result.turns[1].insight is None  # turn N: the summary, not an insight
    assert [e["turn"] for e in result.summary] == [1, 2]
    assert all(e["function"] in FUNCTIONS and e["paper_context"]["pages"] for e in result.summary)
    assert memory.search_nodes(result.turns[0].question, k=3).entities[0].type == "question"
    assert "## Turn 2:" in discussion.markdown(result)
