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
    detail: str = ""    # what is under way inside the step ("x.pdf: embed 40/120 chunks"), shown after the amount

    @property
    def fraction(self) -> float | None:
        return None if not self.total else min(1.0, self.done / self.total)

    @property
    def amount(self) -> str:
        """What is done, of how much: "3/12 pages", "1/4 sections", "1.2/5.0 MB", "1 page" (no total)."""
        if self.unit == "bytes":
            done = f"{self.done / 1e6:.1f}"
            return f"{done}/{self.total / 1e6:.1f} MB" if self.total else f"{done} MB"
        if self.total:
            return f"{self.done}/{counted(self.total, self.unit)}" if self.unit else f"{self.done}/{self.total}"
        return counted(self.done, self.unit) if self.unit else str(self.done)


def counted(n: int, noun: str) -> str:
    """"1 page", "2 pages", "1 entry", "3 entries": a count with its noun (given either way) in the right number."""
    one = noun[:-3] + "y" if noun.endswith("ies") else noun[:-1] if noun.endswith("s") and not noun.endswith("ss") \
        else noun
    many = one[:-1] + "ies" if one.endswith("y") and one[-2:-1] not in "aeiou" else one + "s"
    return f"{n} {one if n == 1 else many}"


ProgressCallback = Callable[[Progress], None]


def stage_reporter(callback: ProgressCallback | None, stage: str, unit: str) -> Callable[[int, int | None], None] | None:
    """Adapt a (done, total) callback of one stage to a Progress callback."""
    if callback is None:
        return None
    return lambda done, total: callback(Progress(stage, done, total, unit))
