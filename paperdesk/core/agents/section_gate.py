"""One summary section through the gate: stream checked sentences; regenerate once; else quote the paper.

The summarizer (summaries and `improve`) hands each section's generation to
`gated_section`: each sentence is checked as it is finished
(sentence_stream.py: leaks, loops and unsupported sentences are dropped, the
rest cited by code), so only checked text is streamed. An attempt that
leaves no sentence is written again with other sampling settings (while the
summary's retries last), and a second such attempt makes the section
extractive. What happened is added to a `GroundingStats`, which
`summarize --json` reports.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable

from paperdesk.core.agents import extractive, quality
from paperdesk.core.agents.page_grounding import PageGrounder, SectionGrounding
from paperdesk.core.agents.sentence_stream import SentenceGate

# Sampling for the second attempt: hotter, with a strong penalty on repeated tokens, another seed.
RETRY = {"temperature": 0.7, "repeat_penalty": 1.3, "seed_offset": 1000}


@dataclass
class GroundingStats:
    """How a summary's sentences are grounded, over all its sections."""

    sentences: int = 0  # sentences shown (generated and kept, or quoted)
    cited: int = 0
    unsupported: int = 0  # generated sentences no source supports, dropped
    generated: int = 0  # the model's sentences, kept or dropped, over every attempt
    kept: int = 0  # the model's sentences shown
    dropped: int = 0
    loops_dropped: int = 0
    removed: int = 0  # the model's page citations that no source on that page supports
    extractive_sections: list[str] = field(default_factory=list)
    regenerated: list[str] = field(default_factory=list)
    leaks_removed: int = 0
    numbers_flagged: int = 0
    failures: dict[str, list[str]] = field(default_factory=dict)  # heading -> why its attempts failed
    dropped_sentences: list[tuple[str, str]] = field(default_factory=list)  # (sentence, why), for benches

    def add(self, grounding: SectionGrounding, shown: bool = True) -> None:
        """Count one attempt's sentences; `shown` when its kept sentences are the section's text."""
        self.generated += grounding.sentences
        self.unsupported += grounding.unsupported
        self.dropped += len(grounding.dropped)
        self.dropped_sentences += grounding.dropped
        self.removed += len(grounding.removed)
        self.numbers_flagged += len(grounding.numbers_flagged)
        if shown:
            self.kept += grounding.cited
            self.sentences += grounding.cited
            self.cited += grounding.cited

    @property
    def supported_share(self) -> float:
        """Share of the shown sentences a source supports (each is cited, or it would not be shown)."""
        return quality.supported_share(self.cited, self.sentences)

    @property
    def kept_share(self) -> float:
        """Share of the model's sentences (every attempt) that passed the support check and were shown."""
        return quality.supported_share(self.kept, self.generated)

    def to_json(self) -> dict[str, Any]:
        return {"sentences": self.sentences, "cited": self.cited, "unsupported": self.unsupported,
                "generated": self.generated, "kept": self.kept, "dropped": self.dropped, "loops_dropped": self.loops_dropped,
                "kept_share": round(self.kept_share, 3),
                "removed": self.removed, "extractive_sections": self.extractive_sections,
                "regenerated": self.regenerated, "leaks_removed": self.leaks_removed,
                "numbers_flagged": self.numbers_flagged, "supported_share": round(self.supported_share, 3),
                "supported_min": quality.SUPPORTED_MIN, "failures": self.failures}


def gated_section(
    attempt: Callable[[dict[str, Any], SentenceGate], bool],
    grounder: PageGrounder,
    key: str,
    heading: str,
    stats: GroundingStats,
    emit: Callable[[str], None],
    used: set[str],
    note: Callable[[str], None] = lambda _m: None,
    keep: str | None = None,
    may_retry: Callable[[], bool] = lambda: True,
) -> str:
    """The checked body of one section, streamed through `emit` sentence by sentence as it passes.

    `attempt(options, gate)` generates the section once ({} first, RETRY
    second), feeding its tokens to `gate`, and returns whether the user
    cancelled. An attempt with no supported sentence has shown nothing, so it
    is written again, and a second such attempt makes the section the
    paper's own key sentences, or, when `keep` is given (an improve's
    current text of the section), that text as it was. The second attempt is
    made only when `may_retry()` grants it (a summary's retries are
    bounded: each costs as long as writing a section). What happened goes
    to `note` (the status line), never into the section's text.
    """
    failures: list[str] = []
    for options in ({}, RETRY):
        if options:
            if not may_retry():
                break
            stats.regenerated.append(heading)
            note(f"{heading}: {failures[-1]}; writing it again")
        gate = SentenceGate(grounder, emit)
        cancelled = attempt(options, gate)
        stats.leaks_removed += gate.leaks
        stats.loops_dropped += gate.loops
        stats.generated += gate.loops
        shown = cancelled or bool(gate.kept)
        stats.add(gate.grounding, shown)
        if shown:
            return gate.text
        failures.append(gate.why())
    stats.failures[heading] = failures
    if keep is not None:
        note(f"{heading}: {failures[-1]}; keeping it as it was")
        emit(keep)
        return keep
    quotes = extractive.key_sentences(grounder.chunks, grounder.vectors, extractive.PURPOSES.get(key, heading),
                                      grounder.encode, grounder.pages_for, used=used)
    if not quotes:
        return ""
    body = extractive.render(quotes)
    stats.extractive_sections.append(heading)
    stats.sentences += len(quotes)
    stats.cited += len(quotes)
    note(f"{heading}: {failures[-1]}; quoting the paper instead")
    emit(body)
    return body
