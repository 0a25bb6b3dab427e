"""`bench research`'s own checks of a finished report, written apart from the report's gates.

A report sentence counts when it carries a source mark [n] (n from the report's
Sources list). It is *supported* when the pages its marks cite state it: every
number in it is on them, every name with two capitals is on them, and at least
70% of its longer words are (the discussion bench's page check, discuss_check).
It is *vacuous* when, once its marks are removed, it says nothing the question
did not: every content word is one of the question's or a word about sources
("passages", "information", "provided"), as in "Based on the passages, here is
how the papers evaluate summaries [2]". A sentence of the answered sections,
cited or not, is *leaked* when it holds a run of six words from a prompt
template (core.prompt_leaks): a copied example reads like a finding.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any, Callable, Sequence

from paperdesk.bench.discuss_check import WORDS_ON_PAGE, _COMMON, _NAME, _NUMBER, _WORD, _flat, split
from paperdesk.core.prompt_leaks import leaks

_SOURCE = re.compile(r"\s*\[(\d+(?:\s*,\s*\d+)*)\]")
_END_SECTIONS = ("## Not answered", "## Left out of the plan", "## Sources", "## How this was researched",
                 "## New on arXiv")
_ABOUT_SOURCES = frozenset("based information provided passages passage given text context summary summarize "
                           "following sources source according excerpts excerpt here heres mentioned discussed "
                           "papers paper documents document question answer".split())

PageText = Callable[[str, int], str]


@dataclass
class ReportCheck:
    sentences: int = 0  # sentences carrying a source mark
    supported: int = 0
    vacuous: int = 0
    leaked: int = 0  # sentences, cited or not, copying a run of a prompt template
    papers: set[str] = field(default_factory=set)  # papers cited by supported sentences
    chunks: set[int] = field(default_factory=set)  # passages cited by supported sentences
    unsupported_text: list[str] = field(default_factory=list)
    vacuous_text: list[str] = field(default_factory=list)
    leaked_text: list[str] = field(default_factory=list)


def body(report: str) -> str:
    """The answered sections: from after the title to the first closing part, without headings or notes."""
    cut = min([report.find(h) for h in _END_SECTIONS if h in report] or [len(report)])
    lines = [ln for ln in report[:cut].splitlines()
             if ln.strip() and not ln.startswith("#") and not (ln.startswith("_") and ln.rstrip().endswith("_"))
             and not ln.startswith("- ")]
    return "\n".join(lines)


def _words(text: str) -> set[str]:
    return {w for w in _WORD.findall(text.lower()) if len(w) >= 4 and w not in _COMMON}


def vacuous(sentence: str, question: str) -> bool:
    """Says nothing beyond the question: its content words are the question's or words about sources."""
    said = _words(_SOURCE.sub(" ", sentence)) - _ABOUT_SOURCES
    asked = {w[:5] for w in _words(question)}
    return not [w for w in said if w[:5] not in asked] and not _NUMBER.search(_SOURCE.sub(" ", sentence))


def stated_on(sentence: str, pages: Sequence[str]) -> bool:
    """Every number and two-capital name of the sentence is on the pages, and 70% of its longer words."""
    page = " ".join(pages)
    text = _SOURCE.sub(" ", sentence)
    flat = _flat(page)
    numbers = {n.replace(",", "") for n in _NUMBER.findall(page)} | set(_NUMBER.findall(flat))
    if any(n.replace(",", "") not in numbers for n in _NUMBER.findall(text)):
        return False
    lower = page.lower()
    if any(name.lower() not in lower for name in _NAME.findall(text)):
        return False
    longer = [w for w in _WORD.findall(text.lower()) if len(w) >= 5 and w not in _COMMON]
    if not longer:
        return True
    prefixes = {w[:5] for w in _WORD.findall(lower) if len(w) >= 5}
    return sum(1 for w in longer if w[:5] in prefixes) / len(longer) >= WORDS_ON_PAGE


def check(report: str, question: str, citations: Sequence[dict[str, Any]], page_text: PageText) -> ReportCheck:
    """Each sentence of the report's answered sections that cites a source, checked against its pages."""
    by_n = {int(c["n"]): c for c in citations}
    out = ReportCheck()
    # a source mark then a full stop ends a sentence, whatever case the next one starts in ("flexmix() ...")
    for sentence in (part for piece in split(body(report)) for part in re.split(r"(?<=\]\.)\s+", piece) if part):
        if leaks(sentence):
            out.leaked += 1
            out.leaked_text.append(sentence)
        marks = [int(n) for m in _SOURCE.finditer(sentence) for n in m.group(1).split(",")]
        cited = [by_n[n] for n in marks if n in by_n]
        if not cited:
            continue
        out.sentences += 1
        if vacuous(sentence, question):
            out.vacuous += 1
            out.vacuous_text.append(sentence)
            continue
        pages = [page_text(c["paper_id"], int(c["page"]) + d) for c in cited for d in (0, 1)]
        if stated_on(sentence, pages):
            out.supported += 1
            out.papers.update(c["paper_id"] for c in cited)
            out.chunks.update(int(c["chunk_id"]) for c in cited)
        else:
            out.unsupported_text.append(sentence)
    return out
