"""The optional model layer, as orchestration: consulted only when the exemplars leave it ambiguous,
its constrained pick is used, and model garbage falls back to the deterministic decision.

Uses FakeLLM (tests/fake_llm.py), which is NOT a model, and a toy bag-of-words
encoder, so the ambiguity is exact; the real models' routing is measured in
tests/integration/test_route_dev.py and `paperdesk bench route`.
"""

from __future__ import annotations

import numpy as np

from paperdesk.core.dispatch import DispatchContext, Dispatcher
from fake_llm import FakeLLM

EXEMPLARS = [("shorter", "improve"), ("shorter please", "improve"), ("note", "notes"), ("note please", "notes")]


class TwoWordEncoder:
    """`first` -> e0, `second` -> e1, any other text the unit vector along `between` in that plane."""

    def __init__(self, first: str, second: str, between: tuple[float, float]) -> None:
        self.first, self.second, self.between = first, second, between

    def encode(self, texts):
        out = []
        for text in texts:
            v = np.zeros(4, dtype=np.float32)
            if self.first in text:
                v[0] = 1
            elif self.second in text:
                v[1] = 1
            else:
                v[0], v[1] = self.between
                v /= np.linalg.norm(v)
            out.append(v)
        return np.stack(out)


def ToyEncoder() -> TwoWordEncoder:
    """"shorter" -> e0, "note" -> e1, anything else halfway between: an exact tie."""
    return TwoWordEncoder("shorter", "note", (1.0, 1.0))


def draft() -> DispatchContext:
    return DispatchContext(state="draft-summary", draft_kind="summary")


def test_clear_cases_never_call_the_model():
    llm = FakeLLM('{"intent": "notes"}')
    d = Dispatcher(ToyEncoder(), backend=llm, exemplars=EXEMPLARS).decide("shorter", draft())
    assert d.command == "improve shorter" and llm.requests == []


def test_ambiguous_message_takes_the_model_pick_under_a_schema():
    llm = FakeLLM('{"intent": "improve"}')
    d = Dispatcher(ToyEncoder(), backend=llm, exemplars=EXEMPLARS).decide("the figure part", draft())
    assert (d.action, d.command, d.stage) == ("delegate", "improve the figure part", "model")
    request = llm.requests[0]
    assert request.json_schema["properties"]["intent"]["enum"] == ["improve", "notes"]
    assert request.max_tokens <= 32


def test_model_garbage_falls_back_to_the_deterministic_decision():
    without = Dispatcher(ToyEncoder(), exemplars=EXEMPLARS).decide("the figure part", draft())
    llm = FakeLLM("I think you want to maybe improve")
    with_garbage = Dispatcher(ToyEncoder(), backend=llm, exemplars=EXEMPLARS).decide("the figure part", draft())
    assert llm.requests, "the model should have been asked"
    assert (with_garbage.action, with_garbage.command) == (without.action, without.command)
    assert with_garbage.stage != "model"


def test_a_pick_outside_the_candidates_is_ignored():
    llm = FakeLLM('{"intent": "abandon"}')
    d = Dispatcher(ToyEncoder(), backend=llm, exemplars=EXEMPLARS).decide("the figure part", draft())
    assert d.stage != "model" and d.command != "abandon"


def VagueEncoder() -> TwoWordEncoder:
    """"undo" -> e0, "something" -> e1, anything else a hair nearer "something" (vague) than "undo"."""
    return TwoWordEncoder("undo", "something", (0.70, 0.714))


def test_the_model_never_turns_a_vague_message_into_a_command():
    llm = FakeLLM('{"intent": "undo"}')
    exemplars = [("undo that", "undo"), ("undo it", "undo"), ("something", "vague"), ("something else", "vague")]
    d = Dispatcher(VagueEncoder(), backend=llm, exemplars=exemplars).decide("um, from before", draft())
    assert d.action == "clarify" and d.command is None, d.reason
    assert llm.requests == []  # too vague to act on: the question, not a guess among commands
