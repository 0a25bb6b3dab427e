"""An answer's first draw uses the configured sampling seed, and a second look draws with the same one, so a
benchmark run repeats and another seed is another draw (FakeLLM: a scripted text, not a model)."""

import pytest

from conftest import PAPERS
from fake_llm import FakeLLM
from paperdesk.core.agents import answer as answers
from paperdesk.core.config import load_settings

pytestmark = pytest.mark.slow

QUESTION = "How many seconds does it take to process a paper of 10-15 pages?"


def test_the_first_draw_uses_the_given_seed(library):
    library.add_pdf(PAPERS / "papermage.pdf")
    hits = answers.retrieve(library, QUESTION, 3)
    default = FakeLLM("It takes a few seconds [1].")
    answers.write(library, default, QUESTION, hits)
    assert default.requests[0].seed == 1
    seeded = FakeLLM("It takes a few seconds [1].")
    answers.write(library, seeded, QUESTION, hits, seed=7)
    assert seeded.requests[0].seed == 7
    assert all(r.seed == answers.RETRY["seed"] for r in seeded.requests[1:])  # a retry, if any, draws anew


def test_a_second_look_draws_with_the_answer_seed(library):
    library.add_pdf(PAPERS / "papermage.pdf")
    writer = FakeLLM("Not found in the passages.")
    answers.answer(library, writer, QUESTION, k=3, recall_k=0, second_look=300, seed=5)
    first_draws = [r for r in writer.requests if r.temperature != answers.RETRY["temperature"]]
    assert len(first_draws) >= 2 and {r.seed for r in first_draws} == {5}  # the answer, then its second look


def test_the_seed_is_a_setting(monkeypatch):
    monkeypatch.delenv("PAPERDESK_ANSWER_SEED", raising=False)
    assert load_settings()["answer.seed"] == 1
    monkeypatch.setenv("PAPERDESK_ANSWER_SEED", "2")
    assert load_settings()["answer.seed"] == 2
