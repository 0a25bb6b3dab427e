"""How long one model call may take on this machine: its prompt and reply at the model's measured speed.

    limit = max(floor, factor * (prompt tokens / prompt tok/s + max_tokens / decode tok/s))

The speeds are those `bench llm` (or the crash probe, decode only) measured for the backend's model
file on this llama.cpp build (speeds.measured); a model not measured yet gets conservative defaults
(DECODE_TPS, PROMPT_TPS). The prompt's size is estimated from its characters (CHARS_PER_TOKEN, on the
side of more tokens), so no model has to be loaded to know it. The floor is the configured minimum
(research.step_timeout): a small call still gets that long. A remote endpoint has no model file and no
measured speed: its calls get the floor. `TimeBudget.describe()` says how the limit was reached, for
the message that names the limit that stopped something.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from paperdesk.core.llm import speeds

DECODE_TPS = 8.0  # tokens/s a model not measured yet is assumed to write at (a small model on 2 busy cores)
PROMPT_TPS = 150.0  # tokens/s it is assumed to read its prompt at
FACTOR = 1.5  # room over the estimate: a busy machine, a second sampling pass, the measuring's own spread
CHARS_PER_TOKEN = 3.5  # English text runs about 4 characters a token; fewer counts more tokens, on the safe side
MESSAGE_TOKENS = 8  # a chat message's role and separators
FLOOR_KEY = "research.step_timeout"


@dataclass(frozen=True)
class TimeBudget:
    """One call's limit and how it was reached."""

    seconds: float  # the limit: max(floor, estimate)
    floor: float
    prompt_tokens: int = 0
    max_tokens: int = 0
    prompt_tps: float | None = None  # None: no speed known (a remote model), the floor is the limit
    decode_tps: float | None = None
    factor: float = FACTOR
    speed_source: str = ""  # "bench llm", "crash probe ...", "default speeds: not measured on this machine"
    floor_key: str = FLOOR_KEY

    @property
    def estimate(self) -> float | None:
        """The seconds the speeds predict, times the factor (None without speeds)."""
        if not self.prompt_tps or not self.decode_tps:
            return None
        return self.factor * (self.prompt_tokens / self.prompt_tps + self.max_tokens / self.decode_tps)

    def how(self) -> str:
        """'prompt ~900 tokens at 150 tok/s + 200 tokens at 8 tok/s, x1.5' (without the speeds: why not)."""
        if self.estimate is None:
            return f"{self.floor_key}; no measured speed for a model without a local file"
        return (f"prompt ~{self.prompt_tokens} tokens at {_rate(self.prompt_tps)} tok/s + {self.max_tokens} tokens "
                f"at {_rate(self.decode_tps)} tok/s, x{self.factor:g}")

    def describe(self) -> str:
        """'48 s (prompt ~900 tokens at 150 tok/s + 200 tokens at 8 tok/s, x1.5)', or the floor and why it held."""
        estimate = self.estimate
        if estimate is None:
            return f"{seconds_text(self.seconds)} s ({self.how()})"
        if estimate < self.floor:
            return (f"{seconds_text(self.seconds)} s ({self.floor_key}, the minimum; the estimate was "
                    f"{seconds_text(estimate)} s: {self.how()})")
        return f"{seconds_text(self.seconds)} s ({self.how()})"


def seconds_text(seconds: float) -> str:
    """48, 7.5, 0.3: whole seconds from 10 s up, else one decimal (two significant figures below 1 s)."""
    if seconds >= 10:
        return f"{seconds:.0f}"
    return f"{seconds:.1f}" if seconds >= 1 else f"{seconds:.2g}"


def _rate(tps: float | None) -> str:
    return f"{tps:.0f}" if tps and tps >= 10 else f"{tps or 0:g}"


def prompt_tokens(prompt: str | None = None, messages: list[dict[str, str]] | None = None) -> int:
    """The prompt's size in tokens, estimated from its characters."""
    if messages:
        chars = sum(len(str(m.get("content", ""))) for m in messages)
        return int(chars / CHARS_PER_TOKEN) + MESSAGE_TOKENS * len(messages)
    return int(len(prompt or "") / CHARS_PER_TOKEN)


def model_speeds(backend: Any) -> tuple[float, float, str] | None:
    """(prompt tok/s, decode tok/s, where they come from) for the backend's model file; None for a remote one."""
    path = getattr(backend, "model_path", None)
    if not path:
        return None
    figures = speeds.measured(Path(path))
    if not figures:
        return PROMPT_TPS, DECODE_TPS, "default speeds: not measured on this machine"
    decode = float(figures.get("decode_tps") or DECODE_TPS)
    prompt = float(figures.get("prompt_tps") or PROMPT_TPS)
    return prompt, decode, str(figures.get("source", "measured"))


def budget(prompt_size: int, max_tokens: int, floor: float, measured: tuple[float, float, str] | None,
           factor: float = FACTOR, floor_key: str = FLOOR_KEY) -> TimeBudget:
    """The limit for a call reading `prompt_size` tokens and writing up to `max_tokens` at `measured` speeds."""
    if measured is None:
        return TimeBudget(floor, floor, prompt_size, max_tokens, factor=factor, floor_key=floor_key)
    prompt_tps, decode_tps, source = max(measured[0], 1e-3), max(measured[1], 1e-3), measured[2]
    estimate = factor * (prompt_size / prompt_tps + max_tokens / decode_tps)
    return TimeBudget(max(floor, estimate), floor, prompt_size, max_tokens, prompt_tps, decode_tps, factor, source,
                      floor_key)


def for_request(backend: Any, request: Any, floor: float, factor: float = FACTOR,
                floor_key: str = FLOOR_KEY) -> TimeBudget:
    """The limit for one GenerationRequest on this backend (its prompt or messages, its max_tokens)."""
    size = prompt_tokens(getattr(request, "prompt", None), getattr(request, "messages", None))
    return budget(size, int(getattr(request, "max_tokens", 0) or 0), floor, model_speeds(backend), factor, floor_key)
