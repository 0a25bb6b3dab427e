"""A generation asked for after its work was stopped starts nothing: on two cores a stray model call would hold
the model (a whole prompt read) while the next command waits for it. FakeLLM is a stand-in streamer (not a
model): this is about when generate() calls the backend, not about text."""

from __future__ import annotations

from fake_llm import FakeLLM
from paperdesk.core.cancel import CancelToken
from paperdesk.core.llm.backend import GenerationRequest, generate


def test_a_generation_under_a_cancelled_token_never_reaches_the_backend():
    llm = FakeLLM("one two three")
    token = CancelToken()
    token.cancel()
    result = generate(llm, GenerationRequest(prompt="x", max_tokens=3), cancel=token)
    assert result.cancelled and result.finish_reason == "cancelled" and result.text == "" and result.tokens == 0
    assert llm.requests == []


def test_a_generation_cancelled_mid_stream_keeps_what_it_had():
    llm = FakeLLM("one two three four")
    token = CancelToken()
    seen = []

    def on_token(text: str) -> None:
        seen.append(text)
        if len(seen) == 2:
            token.cancel()

    result = generate(llm, GenerationRequest(prompt="x", max_tokens=4), on_token=on_token, cancel=token)
    assert result.cancelled and result.text == "one two" and len(llm.requests) == 1
