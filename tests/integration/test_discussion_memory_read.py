"""A second discussion of a paper reads the first one back from memory, with the real default GGUF.

Real library, SQLite, tantivy, MiniLM and the shared session model; tiny outputs, two turns and then one.
"""

from __future__ import annotations

import numpy as np
import pytest

from conftest import PAPERS
from paperdesk.core.discussion import Discussion
from paperdesk.core.discussion.remember import earlier_questions, earlier_targets
from paperdesk.core.discussion.types import REPEAT
from paperdesk.core.memory import MemoryGraph

pytestmark = pytest.mark.slow


def test_a_second_discussion_opens_on_what_the_first_did_not_ask(library, local_backend):
    paper = library.add_pdf(PAPERS / "2304.02623v1.pdf").paper
    memory = MemoryGraph.for_library(library)
    discussion = Discussion(library, local_backend, memory, question_tokens=20, answer_tokens=24)
    first = discussion.run(paper.id, turns=2, every=2)
    assert first.status == "finished"
    # memory holds the first run's questions and the turns that asked them
    earlier = earlier_questions(memory, paper.id)
    assert {q.lower() for q in earlier.questions} >= {t.question.lower() for t in first.turns}
    assert sorted(n for did, n in earlier.turns if did == first.id) == [1, 2]
    assert earlier_targets(discussion.store, earlier.turns) == list(dict.fromkeys(t.topic["target"]
                                                                                  for t in first.turns))

    # one turn is enough to see where the second run opens (known terms are not followed up: unit-tested)
    second = discussion.run(paper.id, turns=1, every=1)
    assert second.status == "finished"
    before = {t.topic["target"] for t in first.turns}
    # every topic of the first run is known to the second, the model-phrased ones too (not template words)
    assert before <= set(discussion.store.get(second.id)["state"]["student"]["known"])
    assert before.isdisjoint(t.topic["target"] for t in second.turns), (
        [t.topic for t in first.turns], [t.topic for t in second.turns])
    # and no question of the second run repeats one of the first, in words or in meaning
    vectors = library.embedder.encode([t.question for t in first.turns + second.turns])
    assert float(np.max(vectors[2:] @ vectors[:2].T)) < REPEAT, [t.question for t in first.turns + second.turns]
    memory.close()
