"""The time limit of one research tool call, which follows the model's speed on this machine.

A call starts with the configured minimum (research.step_timeout). Each model call the tool makes
tells the limit its prompt and reply size first (through `TimedBackend`, the tool's writer), and the
limit becomes that call's own budget from the moment it starts (llm/time_budget.py: the model file's
measured speed, the prompt's size, a safety factor), when that ends later. So a slow machine or a long
prompt gets the time it needs, and a step that still runs past it is stopped by a limit that can say
how it was reached.
"""

from __future__ import annotations

import time
from typing import Any, Iterator

from paperdesk.core.llm.time_budget import FACTOR, FLOOR_KEY, TimeBudget, for_request, seconds_text


class StepLimit:
    """The running limit of one call: the floor from its start, or the latest-ending model call's budget."""

    def __init__(self, floor: float, factor: float = FACTOR) -> None:
        self.floor, self.factor = floor, factor
        self.end = time.monotonic() + floor
        self.binding: TimeBudget | None = None  # the model call whose budget is the limit now (None: the floor)

    def model_call(self, backend: Any, request: Any) -> None:
        """A model call starts (on the tool's thread): give it its own budget from now."""
        found = for_request(backend, request, self.floor, self.factor)
        end = time.monotonic() + found.seconds
        if end >= self.end:
            self.binding, self.end = found, end

    def passed(self) -> bool:
        return time.monotonic() > self.end

    def message(self) -> str:
        """'stopped by the step limit of 48 s (prompt ~900 tokens at 150 tok/s + 200 tokens at 8 tok/s, x1.5)'."""
        if self.binding is None:
            return f"stopped by the step limit of {seconds_text(self.floor)} s ({FLOOR_KEY}; no model call had started)"
        return f"stopped by the step limit of {self.binding.describe()}"


class TimedBackend:
    """The tool's view of a backend: every request first sizes the step's limit, then runs on the real backend.

    Everything else (name, capabilities, chat_template, prompt_room, model_path) is the real backend's.
    """

    def __init__(self, backend: Any, limit: StepLimit) -> None:
        self._backend, self._limit = backend, limit

    def stream(self, request: Any, cancel: Any = None) -> Iterator[tuple[str, str | None]]:
        self._limit.model_call(self._backend, request)
        return self._backend.stream(request, cancel)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._backend, name)
