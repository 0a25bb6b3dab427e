"""One protocol for every text-generation backend: streamed, cancellable.

A request is either a completion prompt or chat messages. `generate` streams
tokens to a callback and returns the whole text; cancelling the token stops
generation within one token and returns the partial text marked cancelled.
The token belongs to one generation: cancelling it stops that generation and
no other running on the same backend.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any, Callable, Iterator, Protocol

from paperdesk.core.cancel import CancelToken
from paperdesk.core.llm.meter import METER
from paperdesk.core.text.clean import ControlStripper, strip_controls


@dataclass
class GenerationRequest:
    prompt: str | None = None
    messages: list[dict[str, str]] | None = None
    max_tokens: int = 256
    stop: list[str] = field(default_factory=list)
    temperature: float = 0.2
    seed: int | None = None
    json_schema: dict[str, Any] | None = None
    logit_bias: dict[int, float] | None = None  # token id -> bias (local backend)
    repeat_penalty: float | None = None  # llama.cpp's penalty on recently generated tokens (>1 discourages loops)
    # How many leading messages every request of this kind shares (a system message and worked turns): a local
    # backend keeps the model's state after them on disk for the next process (prefix_states.py).
    fixed_messages: int = 0

    def __post_init__(self) -> None:
        if (self.prompt is None) == (self.messages is None):
            raise ValueError("a request has either a prompt or messages")


@dataclass
class Generation:
    text: str
    cancelled: bool
    finish_reason: str  # "stop", "length", "cancelled"
    tokens: int
    first_token_s: float | None
    total_s: float


@dataclass(frozen=True)
class Capabilities:
    """What a backend can do, for callers that would otherwise have to guess."""

    streams: bool = True  # tokens arrive one by one (else the whole text at the end)
    json_schema: bool = False  # honours GenerationRequest.json_schema (grammar-constrained output)
    judges: bool = False  # has yes_margins: the model's yes-or-no on items, read from its next-token scores
    batches: bool = False  # has generate_batch: writes several independent requests at once


class Backend(Protocol):
    """What every caller relies on: a name, capabilities, the chat template, warm-up and streaming."""

    name: str
    capabilities: Capabilities

    @property
    def chat_template(self) -> str | None:
        """The model's own chat template (then requests are chat messages), or None for completion prompts.

        Reading it never loads a model that is not loaded yet.
        """
        ...

    def warm_up(self) -> None:
        """Get ready to generate (load the model) now rather than on the first request."""
        ...

    def stream(self, request: GenerationRequest, cancel: CancelToken | None = None
               ) -> Iterator[tuple[str, str | None]]:
        """Yield (token text, finish reason or None) pieces as they are produced.

        A backend may also check `cancel` itself where it would otherwise block (the
        local backend does between prompt batches); `generate` checks it per piece.
        """
        ...


def generate(
    backend: Backend,
    request: GenerationRequest,
    on_token: Callable[[str], None] | None = None,
    cancel: CancelToken | None = None,
) -> Generation:
    """Run a request to the end or until cancelled, streaming each token to `on_token`.

    Every backend's output passes here, so here it is made safe for a terminal: escape sequences and
    control characters (text_clean) never reach `on_token` or the returned text.
    """
    start = time.perf_counter()
    first: float | None = None
    pieces: list[str] = []
    tokens = 0
    clean = ControlStripper()
    finish = "stop"

    def emit(text: str) -> None:
        if text:
            pieces.append(text)
            if on_token is not None:
                on_token(text)

    if cancel is not None and cancel.cancelled:  # asked for after its work was stopped: start nothing
        return Generation("", True, "cancelled", 0, None, time.perf_counter() - start)
    METER.begin()
    stream = backend.stream(request, cancel)
    try:
        for text, reason in stream:
            if cancel is not None and cancel.cancelled:
                finish = "cancelled"
                break
            if text:
                if first is None:
                    first = time.perf_counter() - start
                tokens += 1
                METER.token()
                emit(clean.feed(text))
            if reason:
                finish = reason
        else:
            if cancel is not None and cancel.cancelled:
                finish = "cancelled"
        emit(clean.flush())
    finally:
        METER.end()
        close = getattr(stream, "close", None)
        if close is not None:
            close()  # stops the backend's generator (and its HTTP stream) right away
    return Generation("".join(pieces), finish == "cancelled", finish, tokens, first, time.perf_counter() - start)


def generate_all(
    backend: Backend,
    requests: list[GenerationRequest],
    cancel: CancelToken | None = None,
    on_finished: Callable[[int, Generation], None] | None = None,
    on_started: Callable[[int], None] | None = None,
) -> list[Generation]:
    """Run independent requests to their ends, in order of the list: all at once where the backend writes
    several sequences together (`generate_batch`; it may decline a set, with None), else one after another.
    `on_started(i)` is called as request i starts writing (together: once its prompt is read, the prompts
    being read one after another), `on_finished(i, generation)` as it ends; a cancel ends the rest as
    cancelled."""
    done = on_finished or (lambda _i, _g: None)
    started = on_started or (lambda _i: None)
    if len(requests) > 1 and backend.capabilities.batches and not (cancel is not None and cancel.cancelled):
        together = backend.generate_batch(requests, cancel, done, started)  # type: ignore[attr-defined]
        if together is not None:
            return together
    results = []
    for i, request in enumerate(requests):
        if not (cancel is not None and cancel.cancelled):
            started(i)
        results.append(generate(backend, request, cancel=cancel))
        done(i, results[-1])
    return results


def generate_json(
    backend: Backend,
    request: GenerationRequest,
    cancel: CancelToken | None = None,
) -> tuple[Any, Generation]:
    """Generate under a JSON schema and parse it; retry once with another seed, then a clear error."""
    import dataclasses
    import json

    from paperdesk.core.errors import CancelledError, ModelOutputError

    if request.json_schema is None:
        raise ValueError("generate_json needs a request with json_schema")
    last = ""
    for attempt in range(2):
        seed = None if request.seed is None else request.seed + attempt
        result = generate(backend, dataclasses.replace(request, seed=seed), cancel=cancel)
        if result.cancelled:
            raise CancelledError("cancelled")
        try:
            return _clean_strings(json.loads(result.text)), result
        except json.JSONDecodeError as exc:
            last = f"{exc.msg} at character {exc.pos}"
    raise ModelOutputError(
        f"the model returned invalid JSON twice ({last}); try a larger model or raise the token limit"
    )


def _clean_strings(value: Any) -> Any:
    """A parsed JSON value with its strings made terminal-safe: "\\u001b[2J" in a string decodes to a real ESC."""
    if isinstance(value, str):
        return strip_controls(value)
    if isinstance(value, dict):
        return {strip_controls(k): _clean_strings(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_clean_strings(v) for v in value]
    return value
