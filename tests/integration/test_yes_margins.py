"""The local model's yes-or-no on items, read from its next-token scores (llm/yes_no.py), on the real model."""

import math

import pytest

from paperdesk.core.cancel import CancelToken
from paperdesk.core.llm.backend import GenerationRequest, generate

pytestmark = pytest.mark.slow
SYSTEM = "You check whether a sentence states the answer to a question."
ASK = "Question: What colour is the sky on a clear day?"
THEN = "\nDoes this sentence state the answer? Reply yes or no."


def test_each_item_gets_a_finite_margin_of_its_own(local_backend):
    # whether the margins rank well is the writer's matter (test_writer_model.py): this tiny model's barely do
    items = ["Sentence: On a clear day the sky is blue." + THEN,
             "Sentence: The train leaves at noon from platform four." + THEN]
    margins = local_backend.yes_margins(SYSTEM, ASK, items)
    assert len(margins) == 2 and all(math.isfinite(m) for m in margins) and margins[0] != margins[1]


def test_the_same_item_scores_the_same_whatever_was_evaluated_before(local_backend):
    item = ["Sentence: On a clear day the sky is blue." + THEN]
    first = local_backend.yes_margins(SYSTEM, ASK, item)
    local_backend.yes_margins(SYSTEM, "Question: Who wrote it?\nReply yes or no.", ["Sentence: Nobody."])
    generate(local_backend, GenerationRequest(prompt="One, two,", max_tokens=4, seed=1))
    assert local_backend.yes_margins(SYSTEM, ASK, item) == pytest.approx(first, abs=1e-3)


def test_a_cancelled_token_or_no_time_left_scores_nothing_more(local_backend):
    token = CancelToken()
    token.cancel()
    assert local_backend.yes_margins(SYSTEM, ASK, ["Sentence: Blue."] * 3, cancel=token) == []
    assert local_backend.yes_margins(SYSTEM, ASK, ["Sentence: Blue."] * 3, seconds=0.0) == []


def test_a_generation_after_judging_writes_as_it_would_have(local_backend):
    request = GenerationRequest(prompt="The capital of France is", max_tokens=6, temperature=0.0, seed=1)
    before = generate(local_backend, request).text
    local_backend.yes_margins(SYSTEM, ASK, ["Sentence: On a clear day the sky is blue." + THEN])
    assert generate(local_backend, request).text == before
