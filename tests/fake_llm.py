"""FakeLLM: a stand-in text generator for tests of pure orchestration (workflow, Desk plumbing).

It is NOT a model: it streams a fixed text word by word, so tests that are
about states, persistence and cancellation run fast and deterministically.
Everything about generation quality is tested against the real GGUF model.
"""

from __future__ import annotations

import threading
import time
from typing import Iterator

from paperdesk.core.llm.backend import Capabilities, GenerationRequest

DEFAULT_TEXT = "readers keep track of the citations they have already seen across papers."


class FakeLLM:
    name = "fake-llm"
    chat_template = None
    capabilities = Capabilities(streams=True, json_schema=False)

    def warm_up(self) -> None:
        """Nothing to load."""

    def __init__(self, text: str = DEFAULT_TEXT, delay: float = 0.0, hold_first_after: int | None = None) -> None:
        self.text = text
        self.delay = delay  # seconds per token, so a test can cancel mid-stream
        # the first request stops after this many tokens until it is cancelled: an interruption that always
        # lands at the same point, however slowly the test's keys arrive
        self.hold_first_after = hold_first_after
        # set to an Event, every generation stops after its first token until the event is set (or it is
        # cancelled): work that is surely still running while a test sends it messages, however fast it would be
        self.held_until: threading.Event | None = None
        self.requests: list[GenerationRequest] = []
        self.tokens: list = []  # each request's cancel token, beside it: which run a request belonged to
        self.started = threading.Event()  # set when the first token is out

    def stream(self, request: GenerationRequest, cancel=None) -> Iterator[tuple[str, str | None]]:
        self.requests.append(request)
        self.tokens.append(cancel)
        every = self.text.split(" ")
        words = every[: request.max_tokens]
        hold = self.hold_first_after if len(self.requests) == 1 else None
        for i, word in enumerate(words):
            if i == hold:
                _wait_for(cancel)
            if i == 1 and self.held_until is not None:
                _wait_for(cancel, until=self.held_until)
            if self.delay:
                time.sleep(self.delay)
            self.started.set()
            yield (word if i == 0 else " " + word), None
        yield "", "length" if len(words) < len(every) else "stop"  # a word a token: cut at the limit, as a model is


def _wait_for(cancel, timeout: float = 60.0, until: threading.Event | None = None) -> None:
    """Block until `cancel` is cancelled (the generation's caller checks it on the next piece), or `until` is set."""
    deadline = time.monotonic() + timeout
    while not (cancel is not None and cancel.cancelled) and time.monotonic() < deadline:
        if until is not None and until.is_set():
            return
        time.sleep(0.01)


class ScriptedFakeLLM(FakeLLM):
    """A FAKE model that answers each request with the next of its scripted replies (the last one repeats).

    For tests of the agent loop's orchestration: what the loop does with a choice, not how a model makes it.
    """

    name = "scripted-fake-llm"

    def __init__(self, replies: list[str]) -> None:
        super().__init__(replies[0] if replies else "")
        self.replies = list(replies)

    def stream(self, request: GenerationRequest, cancel=None) -> Iterator[tuple[str, str | None]]:
        self.requests.append(request)
        self.tokens.append(cancel)
        reply = self.replies[min(len(self.requests) - 1, len(self.replies) - 1)]
        for i, word in enumerate(reply.split(" ")):  # a token a word, so token limits count something
            yield (word if i == 0 else " " + word), None
        yield "", "stop"
