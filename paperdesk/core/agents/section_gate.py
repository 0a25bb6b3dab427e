"""One summary section through the gate: generate, check, ground; regenerate once; else quote the paper.

The summarizer (summaries and `improve`) hands each section's generation to
`gated_section`: leaked scaffolding is removed, a loop or enumeration or a
low supported share fails the attempt, the second attempt uses other
sampling settings, and a second failure makes the section extractive. What
happened is added to a `GroundingStats`, which `summarize --json` reports.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable

from paperdesk.core.agents import extractive, quality
from paperdesk.core.agents.attribution import trim_loops
from paperdesk.core.agents.page_grounding import PageGrounder, SectionGrounding

# Sampling for the second attempt: hotter, with a strong penalty on repeated tokens, another seed.
RETRY = {"temperature": 0.7, "repeat_penalty": 1.3, "seed_offset": 1000}


@dataclass
class GroundingStats:
    """How a summary's sentences are grounded, over all its sections."""

    sentences: int = 0
    cited: int = 0
    unsupported: int = 0
    removed: int = 0  # the model's page citations that no source on that page supports
    extractive_sections: list[str] = field(default_factory=list)
    regenerated: list[str] = field(default_factory=list)
    leaks_removed: int = 0
    numbers_flagged: int = 0
    failures: dict[str, list[str]] = field(default_factory=dict)  # heading -> why its attempts failed

    def add(self, grounding: SectionGrounding) -> None:
        self.sentences += grounding.sentences
        self.cited += grounding.cited
        self.unsupported += grounding.unsupported
        self.removed += len(grounding.removed)
        self.numbers_flagged += len(grounding.numbers_flagged)

    @property
    def supported_share(self) -> float:
        return quality.supported_share(self.cited, self.sentences)

    def to_json(self) -> dict[str, Any]:
        return {"sentences": self.sentences, "cited": self.cited, "unsupported": self.unsupported,
                "removed": self.removed, "extractive_sections": self.extractive_sections,
                "regenerated": self.regenerated, "leaks_removed": self.leaks_removed,
                "numbers_flagged": self.numbers_flagged, "supported_share": round(self.supported_share, 3),
                "supported_min": quality.SUPPORTED_MIN, "failures": self.failures}


def judge(raw: str, grounder: PageGrounder) -> tuple[SectionGrounding, list[str], int]:
    """Ground one attempt; return it, why it fails (empty when it passes) and the leaks removed."""
    verdict = quality.check(raw)
    grounding = grounder.ground(verdict.text)
    reasons = list(verdict.reasons)
    if not reasons and (grounding.cited == 0 or grounding.share < quality.SUPPORTED_MIN):
        reasons.append(f"supported share {grounding.cited}/{grounding.sentences} below {quality.SUPPORTED_MIN}")
    return grounding, reasons, verdict.leaks_removed


def gated_section(
    attempt: Callable[[dict[str, Any]], tuple[str, bool]],
    grounder: PageGrounder,
    key: str,
    heading: str,
    stats: GroundingStats,
    emit: Callable[[str], None],
    used: set[str],
) -> str:
    """The checked body of one section.

    `attempt(options)` generates the section once ({} first, RETRY second) and
    returns (text, cancelled). A cancelled attempt is kept as it stands, only
    cleaned and grounded: the revision is stored as interrupted.
    """
    failures: list[str] = []
    for options in ({}, RETRY):
        if options:
            stats.regenerated.append(heading)
            emit(f"\n[{heading}: {failures[-1]}; writing it again]\n")
        raw, cancelled = attempt(options)
        grounding, reasons, leaks = judge(raw, grounder)
        stats.leaks_removed += leaks
        if cancelled or not reasons:
            stats.add(grounding)
            return grounding.text
        failures.append("; ".join(reasons))
        stats.removed += len(grounding.removed)  # reported even though the attempt is dropped
        stats.numbers_flagged += len(grounding.numbers_flagged)
    stats.failures[heading] = failures
    quotes = extractive.key_sentences(grounder.chunks, grounder.vectors, extractive.PURPOSES.get(key, heading),
                                      grounder.encode, grounder.pages_for, used=used)
    if not quotes:
        # Nothing quotable: keep the last attempt, cleaned, rather than an empty section.
        grounding, _reasons, _leaks = judge(trim_loops(quality.check(raw).text), grounder)
        stats.add(grounding)
        return grounding.text
    body = extractive.render(quotes)
    stats.extractive_sections.append(heading)
    stats.sentences += len(quotes)
    stats.cited += len(quotes)
    emit(f"\n[{heading}: {failures[-1]}; quoting the paper instead]\n{body}\n")
    return body
