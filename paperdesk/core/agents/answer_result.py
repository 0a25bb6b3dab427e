"""What an answer is: its text, the passages it cites, and how its grounding went; and the answer's fixed
texts (nothing found, not found, none stated) and stop strings, shared by the ways an answer is written."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from paperdesk.core.agents import answer_check
from paperdesk.core.library.library import Hit

NOTHING_FOUND = "Nothing in your library answers this; add papers on the topic (find, then summarize) and ask again."
NOT_FOUND = "Not found in your papers; the passages closest to the question say:"
# passages were read and none states it, and they hold no whole sentence to quote (only tables or code)
NONE_STATED = "Not found in your papers: none of the passages read states it."
QUOTED = "The papers state:"  # the answer that quotes a passage's own sentence when the model's did not hold
# Follows an answer that stands but that the writer, reading its cited passages again, could not confirm
# (answer_check.firm): right far less often than a confirmed one.
UNSURE = ("(Unsure: reading the passages it cites again, the writer could not confirm that they state this. "
          "Check the cited pages before relying on it.)")
SUPPORTED_MIN = 0.5  # share of an answer's sentences a passage must support, else it is not shown as the answer
STOPS = ["\nQ:", "\nQuestion:", "\nSource ", "\nSources:", "\nPassages:", "\nResearch question:", "\n\n",
         "\nAnswer:", "\n["]


def unsure_note_removed(text: str) -> str:
    """A stored answer's text without the UNSURE note that follows it."""
    return text.replace(f"\n\n{UNSURE}", "").replace(UNSURE, "").rstrip() if UNSURE in text else text


def not_found_text(closest: str, note: str = NOT_FOUND) -> str:
    """"Not found" (`note`) with the closest sentences of the passages read; NONE_STATED when they hold none."""
    return f"{note} {closest}" if closest else NONE_STATED


@dataclass
class AnswerResult:
    text: str
    citations: list[dict[str, Any]]  # the sources the text cites
    hits: list[Hit]
    cancelled: bool
    timings: dict[str, float] = field(default_factory=dict)
    removed_citations: list[int] = field(default_factory=list)  # the model's [n] that its source does not support
    fallback: bool = False  # the text quotes the passages because the model's was unusable
    regenerated: bool = False  # the first text failed the quality gate and was written again
    leaks_removed: int = 0  # sentences that echoed the prompt's scaffolding
    numbers_flagged: list[str] = field(default_factory=list)  # sentences whose numbers no cited passage states
    gate_failures: list[str] = field(default_factory=list)  # why the quality gate failed an attempt
    dropped: list[str] = field(default_factory=list)  # sentences withheld: facts their passages do not state
    not_found: bool = False  # too little was supported: the text says so and quotes the closest passages
    recited: int = 0  # sentences whose [n] was moved to the passage that states their facts
    read: list[str] = field(default_factory=list)  # what the writer read first: each passage's evidence window
    support: float | None = None  # the answer check's margin for the text as it stands; None: not checked

    @property
    def unsure(self) -> bool:
        """The answer stands, but the writer could not confirm that its cited passages state it."""
        return not answer_check.firm(self.support)

    @property
    def shown_text(self) -> str:
        """The text as a reader is shown it: an unsure answer is followed by UNSURE."""
        return f"{self.text}\n\n{UNSURE}" if self.unsure and self.text else self.text

    def to_json(self) -> dict[str, Any]:
        return {"text": self.text, "citations": self.citations, "hits": [h.to_json() for h in self.hits],
                "grounding": {"removed": len(self.removed_citations), "extractive": self.fallback,
                              "regenerated": self.regenerated, "leaks_removed": self.leaks_removed,
                              "numbers_flagged": len(self.numbers_flagged), "failures": self.gate_failures,
                              "dropped": self.dropped, "not_found": self.not_found, "recited": self.recited},
                "support": {"margin": None if self.support is None else round(self.support, 3),
                            "unsure": self.unsure},
                "read": self.read, "timings": {k: round(v, 3) for k, v in self.timings.items()}}

    @property
    def sources(self) -> list[dict[str, Any]]:
        """Every passage the text was written from, numbered as cited, with `cited` marked."""
        cited = {c["n"] for c in self.citations}
        return [{**source(n, h), "cited": n in cited} for n, h in enumerate(self.hits, start=1)]

    @property
    def cited_papers(self) -> list[str]:
        """Paper ids the text cites, in order; all source papers when it cites none."""
        cited = [c["paper_id"] for c in self.citations] or [h.paper_id for h in self.hits]
        return list(dict.fromkeys(cited))


def source(n: int, hit: Hit) -> dict[str, Any]:
    return {"n": n, "paper_id": hit.paper_id, "title": hit.title, "page": hit.page_start, "chunk_id": hit.chunk_id,
            "quote": hit.snippet.replace("**", ""), **({"via": hit.via} if hit.via else {})}
