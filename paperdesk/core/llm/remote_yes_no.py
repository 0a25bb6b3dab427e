"""A model server's own yes-or-no on each of several items, read from the log-probabilities it reports.

The local backend reads the model's next-token scores (yes_no.py); a server only reports what its API gives. An
OpenAI-compatible chat completion of one token, with `logprobs` and the TOP_LOGPROBS likeliest first tokens,
says as much: the margin is the log-odds of "yes" over "no" over those tokens (every casing and leading space).
When only one of the two words is among them, the other is no likelier than the least likely one listed, so
that one's log-probability bounds the margin. Each item is one request with the same chat as the local
backend's, so a server running the same model gives the same margins.

A server that refuses log-probabilities (llama_cpp.server started with logits_all off, a gateway that strips
them) is asked once: the backend remembers, and later items get no margin (the caller then goes on without
the check) instead of one failing request each.
"""

from __future__ import annotations

import json
import math
import time
from typing import TYPE_CHECKING, Any, Sequence

import requests

from paperdesk.core.cancel import CancelToken
from paperdesk.core.llm.yes_no import messages

if TYPE_CHECKING:
    from paperdesk.core.llm.remote import RemoteBackend

TOP_LOGPROBS = 20  # the most first tokens OpenAI's API reports
READ_BYTES = 4096
MAX_REPLY = 1 << 20  # a one-token reply with its log-probabilities is a few kB; a longer one is not read on
BUSY = frozenset({408, 425, 429, 502, 503, 504})  # a server busy or between restarts now: asked again next time


def margins(backend: "RemoteBackend", system: str, opening: str, items: Sequence[str],
            cancel: CancelToken | None = None, seconds: float | None = None) -> list[float]:
    """Each item's yes-over-no margin, in order; fewer come back when `cancel` is cancelled, `seconds` have
    passed (counted from the first item), or the server gives no log-probabilities for an item."""
    deadline = None if seconds is None else time.monotonic() + seconds
    out: list[float] = []
    for item in items:
        if backend.refused_judging or (cancel is not None and cancel.cancelled):
            break
        if deadline is not None and time.monotonic() >= deadline:
            break
        value = _one(backend, messages(system, opening, item), cancel, deadline)
        if value is None:
            break
        out.append(value)
    return out


def _one(backend: "RemoteBackend", chat: list[dict[str, str]], cancel: CancelToken | None,
         deadline: float | None) -> float | None:
    """One item's margin, or None (cancelled, past `deadline`, or the server gave no usable log-probabilities:
    then `backend.refused_judging` says why)."""
    body: dict[str, Any] = {"messages": chat, "max_tokens": 1, "temperature": 0.0, "stream": False,
                            "logprobs": True, "top_logprobs": TOP_LOGPROBS}
    if backend.model:
        body["model"] = backend.model
    timeout = backend.timeout if deadline is None else max(min(backend.timeout, deadline - time.monotonic()), 0.1)
    try:
        response = backend.post_json("/v1/chat/completions", body, cancel, timeout)
    except requests.RequestException:
        return None  # unreachable or too slow now; the next answer asks again
    if response is None:
        return None
    with response:
        if response.status_code != 200:
            if response.status_code not in BUSY:
                backend.refused_judging = f"HTTP {response.status_code}"
            return None
        raw = _read(response, deadline)
    if raw is None:
        return None  # too long, or still arriving at the deadline
    try:
        data = json.loads(raw.decode("utf-8", errors="replace"))
    except ValueError:
        backend.refused_judging = "a reply that is not JSON"
        return None
    top = first_token_logprobs(data)
    if top is None:
        backend.refused_judging = "no log-probabilities in its reply"
        return None
    return margin_of(top)


def _read(response: requests.Response, deadline: float | None) -> bytes | None:
    """The reply's body, or None once it passes MAX_REPLY bytes or `deadline` while arriving."""
    raw = bytearray()
    try:
        for piece in response.iter_content(READ_BYTES):
            raw += piece
            if len(raw) > MAX_REPLY or (deadline is not None and time.monotonic() > deadline):
                return None
    except requests.RequestException:
        return None
    return bytes(raw)


def first_token_logprobs(data: Any) -> list[tuple[str, float]] | None:
    """(token, log-probability) of the reply's first token's alternatives, from an OpenAI chat completion;
    None when the reply does not carry them in that shape."""
    try:
        content = data["choices"][0]["logprobs"]["content"]
        listed = content[0]["top_logprobs"]
        top = [(str(t["token"]), float(t["logprob"])) for t in listed]
    except (KeyError, IndexError, TypeError, ValueError):
        return None
    top = [(token, logprob) for token, logprob in top if math.isfinite(logprob)]
    return top or None


def margin_of(top: Sequence[tuple[str, float]]) -> float | None:
    """log P(yes) - log P(no) over the listed first tokens; a word not listed counts as likely as the least likely
    token listed (at most that). None when neither word is listed."""
    yes = [lp for token, lp in top if token.strip().lower() == "yes"]
    no = [lp for token, lp in top if token.strip().lower() == "no"]
    if not yes and not no:
        return None
    floor = min(lp for _, lp in top)
    return _logsumexp(yes or [floor]) - _logsumexp(no or [floor])


def _logsumexp(values: Sequence[float]) -> float:
    top = max(values)
    return top + math.log(sum(math.exp(v - top) for v in values))
