"""The quality gate for generated text: loops, enumerations, leaked scaffolding, unsupported numbers.

A 270M base model loops inside a sentence ("I. X II. X III. X"), repeats a
sentence with small changes, copies the prompt's scaffolding ("A reader
asked: ...", "(empty)") and invents figures ("10 times" where the page says
"three times"). Dropping exact repeated sentences catches none of these, so
every generated section (summary, improve, answer, report) passes through
here: leaks are removed, loops and enumerations fail the section, and the
caller regenerates it once and then falls back to quoting its sources.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field
from typing import Sequence

from paperdesk.core import prompt_leaks
from paperdesk.core.agents.citations import CITATION
from paperdesk.core.text.abbreviations import rejoin

LOOP_N = 4  # a phrase of this many words said twice in one section is a loop
SUPPORTED_MIN = 0.5  # share of a section's sentences a source must support, else it is regenerated

_WORD = re.compile(r"[a-z0-9]+(?:['.-][a-z0-9]+)*")
_REF = re.compile(r"\[\s*(?:pp?\.\s*\d+(?:\s*[-–]\s*\d+)?|\d{1,2})\s*\]")
_STOP = frozenset(
    "a an the of in on for to and or but is are was were be been being this that these those it its with by as at "
    "from into than then there their they them we our us he she his her which what who whom when where how not no "
    "can could may might will would should also such some more most other each any all both about so one has have had do does did".split())
STOPWORDS = _STOP  # the function words a sentence shares with any page

# Prompt scaffolding a small model echoes back; matched case-insensitively anywhere in a sentence.
_LEAK = re.compile(
    r"a reader asked|\bpart of (?:a summary of )?this paper was\b|\(empty\)|notes on the paper|"
    r"passages from the paper|key points:|excerpt:|a short summary of this paper follows|"
    r"section says, citing|citing pages like|below is (?:an excerpt|the rewritten)|"
    r"with the pages they come from|with page markers|^\s*#{1,6}\s|"
    r"^\s*(?:question|answer|q|a|sources?|passages?|notes?|feedback|research question)\s*:|"
    # the prompt's framing ("its method section says") as the subject: about the summary, not the paper
    r"^\s*(?:the|this|its)\s+(?:paper'?s\s+)?(?:[\w-]+\s+){0,2}section\s+(?:of\s+(?:the|this)\s+paper\b|[a-z]*[a-rt-z]s\b)",
    re.I)
# A sentence ends at . ! ? before a capital, digit, quote or bracket, but not inside "[p. 3]" or "[pp. 3-4]".
_SENTENCE_END = re.compile(r"(?<!\[p\.)(?<!\[pp\.)(?<=[.!?])\s+(?=[A-Z0-9\"'“(\[*])")
_LIST_MARK = re.compile(r"(?:^|\s)(?:[IVXLC]{1,5}|\d{1,2}|[a-h])[.)]\s+|(?:^|\s)[-•*]\s+")

_UNITS = {"zero": 0, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8, "nine": 9,
          "ten": 10, "eleven": 11, "twelve": 12, "thirteen": 13, "fourteen": 14, "fifteen": 15, "sixteen": 16,
          "seventeen": 17, "eighteen": 18, "nineteen": 19, "twenty": 20, "thirty": 30, "forty": 40, "fifty": 50,
          "sixty": 60, "seventy": 70, "eighty": 80, "ninety": 90, "hundred": 100, "thousand": 1000,
          "million": 1_000_000, "billion": 1_000_000_000, "twice": 2, "thrice": 3, "double": 2, "triple": 3,
          "half": 0.5, "dozen": 12}
# "one" is left out on purpose: it is a pronoun far more often than a count.
# Digits with an optional unit letter ("2x", "20%", "270M"), or a number word.
_NUMBER = re.compile(r"(?<![\w.])(\d+(?:,\d{3})*(?:\.\d+)?)[x×%kmb]?(?![a-z0-9])|\b(?:" + "|".join(_UNITS) + r")\b",
                     re.I)


@dataclass
class Verdict:
    """What the gate found in one section; `ok` when nothing fails it."""

    text: str  # the section with leaked lines removed
    reasons: list[str] = field(default_factory=list)
    leaks_removed: int = 0

    @property
    def ok(self) -> bool:
        return not self.reasons


def words(text: str) -> list[str]:
    """Lower-case words of `text`, citation markers and punctuation left out."""
    return _WORD.findall(_REF.sub(" ", text).lower())


def phrase_counts(texts: Sequence[str], n: int = LOOP_N) -> Counter[tuple[str, ...]]:
    """How often each phrase of `n` words occurs in `texts`, all together."""
    counts: Counter[tuple[str, ...]] = Counter()
    for text in texts:
        tokens = words(text)
        counts.update(tuple(tokens[i : i + n]) for i in range(len(tokens) - n + 1))
    return counts


def repeated_phrases(text: str, n: int = LOOP_N, sources: Sequence[str] = ()) -> list[str]:
    """Phrases of `n` words (at least one of them a content word) that occur more than once, and more often
    than in `sources`: a sentence copied from a passage that says "the number of observations that are
    larger ... minus the number of observations that are smaller" repeats the paper's wording, not a loop."""
    return _repeated(text, n, phrase_counts(sources, n))


def _repeated(text: str, n: int, stated: Counter[tuple[str, ...]]) -> list[str]:
    tokens = words(text)
    grams = Counter(tuple(tokens[i : i + n]) for i in range(len(tokens) - n + 1))
    return [" ".join(g) for g, count in grams.items()
            if count > max(1, stated[g]) and any(w not in _STOP for w in g)]


def enumeration(text: str, minimum: int = 3) -> bool:
    """A list of at least `minimum` items that all say the same thing ("I. X II. X III. X")."""
    items = [" ".join(words(item)[:6]) for item in _LIST_MARK.split(text)]
    counts = Counter(item for item in items if len(item.split()) >= 2)
    return any(count >= minimum for count in counts.values())


def split_sentences(text: str) -> list[str]:
    """Sentences of a section, one list item or line at most per sentence."""
    out: list[str] = []
    for line in text.splitlines():
        out.extend(rejoin(part.strip() for part in _SENTENCE_END.split(line.strip()) if part.strip(" -*•")))
    return out


def leaks(sentence: str) -> bool:
    """The sentence echoes the prompt: its scaffolding ("citing pages like [p. 3", "A reader asked: ...") or a
    run of six words of a prompt template (a copied worked example)."""
    return bool(_LEAK.search(CITATION.sub("", sentence).strip(" -*•"))) or prompt_leaks.leaks(sentence)


def remove_leaks(text: str) -> tuple[str, int]:
    """Drop sentences that echo the prompt's scaffolding, and the questions that follow them."""
    kept_lines: list[str] = []
    removed = 0
    after_leak = False  # a leaked "A reader asked:" line drags its echoed questions with it, on any line
    for line in text.splitlines():
        kept: list[str] = []
        for sentence in split_sentences(line):
            body = CITATION.sub("", sentence).strip(" -*•")
            if leaks(body) or (after_leak and body.endswith("?")):
                removed += 1
                after_leak = True
                continue
            after_leak = False
            kept.append(sentence)
        if kept:
            kept_lines.append(" ".join(kept))
    return "\n".join(kept_lines).strip(), removed


def check(text: str, min_words: int = 4, sources: Sequence[str] = ()) -> Verdict:
    """Remove leaked scaffolding, then fail the text on a loop, an enumeration or nothing left (under
    `min_words` words). A phrase repeated no more often than `sources` (the passages the text was written
    from) repeat it is their wording, not a loop."""
    cleaned, leaks = remove_leaks(text)
    reasons: list[str] = []
    if len(words(cleaned)) < min_words:
        reasons.append("empty")
    stated = phrase_counts(sources)  # counted once for the text and each of its sentences
    loops = _repeated(cleaned, LOOP_N, stated)
    if loops:
        inside = any(_repeated(s, LOOP_N, stated) for s in split_sentences(cleaned))
        reasons.append(f"loop {'inside a sentence' if inside else 'across sentences'}: {loops[0]!r}")
    if enumeration(cleaned):
        reasons.append("enumeration of one phrase")
    return Verdict(cleaned, reasons, leaks)


def numbers(text: str) -> set[float]:
    """The numbers a text states: digits ("20%", "1,200", "3.5") and number words ("three", "twice")."""
    found: set[float] = set()
    for match in _NUMBER.finditer(_REF.sub(" ", text)):
        digits = match.group(1)
        value = float(digits.replace(",", "")) if digits else _UNITS[match.group(0).lower()]
        found.add(float(value))
    return found


def decimal_places(text: str) -> dict[float, int]:
    """Each number written in digits, with the most decimal places the text writes it with ("0.690": 3)."""
    places: dict[float, int] = {}
    for match in _NUMBER.finditer(_REF.sub(" ", text)):
        digits = match.group(1)
        if digits:
            value = float(digits.replace(",", ""))
            places[value] = max(places.get(value, 0), len(digits.partition(".")[2]))
    return places


def unsupported_numbers(sentence: str, passage: str) -> list[float]:
    """Numbers in `sentence` that `passage` does not state (in digits or in words)."""
    stated = numbers(passage)
    body = _LIST_MARK.sub(" ", CITATION.sub(" ", sentence))
    return sorted(n for n in numbers(body) if n not in stated)


def supported_share(supported: int, sentences: int) -> float:
    """Share of sentences a source supports; 1.0 for no sentences (nothing to fault)."""
    return supported / sentences if sentences else 1.0


EXTRACTIVE_MARK = "_Quoted from the paper"  # how an extractive section's note starts (extractive.NOTE)


def summary_grounding(markdown: str) -> tuple[int, int, list[str]]:
    """(cited sentences, sentences, extractive section headings) of a stored summary's text.

    Read from the text itself, so any stored revision (older ones included) can
    show its cited share without a stored statistic.
    """
    cited = total = 0
    extractive: list[str] = []
    heading = ""
    quoting = False  # in an extractive section each bullet is one quoted sentence, "et al. (2022)" included
    for line in markdown.splitlines():
        if line.startswith("#"):
            heading = line.lstrip("#").strip()
            quoting = False
            continue
        if line.startswith(EXTRACTIVE_MARK):
            extractive.append(heading)
            quoting = True
            continue
        if quoting and line.startswith("- “"):
            total += 1
            cited += bool(CITATION.search(line))
            continue
        for sentence in split_sentences(line):
            if words(sentence):
                total += 1
                cited += bool(CITATION.search(sentence))
    return cited, total, extractive


def cited_share_line(markdown: str) -> str:
    """'14 of 17 sentences cited' (and which sections quote the paper), for under a summary."""
    cited, total, extractive = summary_grounding(markdown)
    if not total:
        return ""
    line = f"{cited} of {total} sentence{'s' if total != 1 else ''} cited"
    if extractive:
        line += f" · quoted from the paper: {', '.join(extractive)}"
    return line
