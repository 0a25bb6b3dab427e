"""Progress reports from long work, in one shape every face can render."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable


@dataclass(frozen=True)
class Progress:
    stage: str          # "download", "parse", "embed", "index", ...
    done: int
    total: int | None   # None when unknown (a download without Content-Length)
    unit: str = ""      # "bytes", "pages", "chunks"

    @property
    def fraction(self) -> float | None:
        return None if not self.total else min(1.0, self.done / self.total)


ProgressCallback = Callable[[Progress], None]


def stage_reporter(callback: ProgressCallback | None, stage: str, unit: str) -> Callable[[int, int | None], None] | None:
    """Adapt a (done, total) callback of one stage to a Progress callback."""
    if callback is None:
        return None
    return lambda done, total: callback(Progress(stage, done, total, unit))
