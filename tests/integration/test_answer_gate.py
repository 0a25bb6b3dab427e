"""Answers and reports go through the same quality gate: orchestration with a scripted FakeLLM.

FakeLLM is not a model (see tests/fake_llm.py): it replays a degenerate text so the
gate's regenerate-then-quote path runs deterministically over a real library.
"""

import pytest

from conftest import PAPERS
from fake_llm import FakeLLM
from paperdesk.core.agents import answer as answers
from paperdesk.core.agents.answer_result import QUOTED

pytestmark = pytest.mark.slow
LOOP = ("readers track citations across papers. readers track citations across papers again and "
        "readers track citations across papers")


def test_a_looping_answer_is_written_again_then_quoted(library):
    library.add_pdf(PAPERS / "2302.07302v1.pdf")
    question = "how do readers keep track of citations"
    hits = answers.retrieve(library, question)
    fake = FakeLLM(LOOP)
    result = answers.write(library, fake, question, hits)
    assert len(fake.requests) == 2
    assert fake.requests[1].temperature == answers.RETRY["temperature"]
    assert fake.requests[1].seed != fake.requests[0].seed
    assert result.regenerated and result.citations
    # failed twice: the passage sentence that holds the question is the answer, else the passages are quoted
    if result.fallback:
        assert result.text.startswith(answers.FALLBACK_NOTE)
    else:
        assert result.text.startswith(QUOTED) and "across papers again" not in result.text
    grounding = result.to_json()["grounding"]
    assert grounding["regenerated"] and grounding["failures"][0].startswith("loop")


def test_a_clean_answer_is_not_regenerated_and_leaks_are_removed(library):
    library.add_pdf(PAPERS / "2302.07302v1.pdf")
    question = "how do readers keep track of citations"
    hits = answers.retrieve(library, question)
    fake = FakeLLM("readers lose track of the citations they have already seen.\n"
                   "A reader asked: What is the study about? What is the study about?")
    result = answers.write(library, fake, question, hits)
    assert len(fake.requests) == 1 and not result.regenerated and not result.fallback
    assert "reader asked" not in result.text and result.leaks_removed == 2


def test_an_answer_cut_at_its_token_limit_ends_at_its_last_whole_sentence(library):
    library.add_pdf(PAPERS / "2302.07302v1.pdf")
    question = "how do readers keep track of citations"
    hits = answers.retrieve(library, question)
    fake = FakeLLM("Readers lose track of the citations they have already seen [1]. They also keep notes on")
    result = answers.write(library, fake, question, hits, max_tokens=14)
    assert len(fake.requests) == 1 and not result.regenerated
    assert result.text.rstrip().endswith("already seen [1].")
    assert "keep notes" not in result.text
