"""Sentences whose facts the sources do not state never reach the reader: not streamed, not stored.

A small model writes fluent sentences with invented numbers, names and DOIs
("published in the journal SQuALITY (https://doi.org/10.3748/...)"). The gate
sits between the model's token stream and the reader: it holds each sentence
until it is complete, checks its facts, and passes it on only when they hold.

A fact is a number (digits or a number word, with no more decimal places than
a source writes it with: "1.0" is not stated by "Figure 1"), a DOI or web
address, or a name spelled with more than one capital (CiteSee, SQuALITY,
BERT, PySBD). A sentence that cites [n] must find its facts in source n (for an
answer, the window of passage n that the writer read, not its whole chunk); a
sentence that cites nothing must find them in some passage (grounding cites
it afterwards); the question's own words count as stated. A model often
miscounts its sources ("... 1 in 5 patients [3]" when [1] says it): a sentence
whose facts another passage states is passed on citing that passage instead.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Callable, Sequence

from paperdesk.core.agents.quality import decimal_places, numbers

SOURCE_REF = re.compile(r"\[(\d{1,2})\]")
# a sentence is complete at . ! ? (and any [n] right after it) once more text follows; or at a line break
_COMPLETE = re.compile(r"(?<![\s(]p)(?<![\s(]pp)[.!?](?:[\"')\u201d]*)(?:\s*\[\d{1,2}\](?:\s*[.!?])?)*(?=\s+\S)|\n")
_MARKERS_ONLY = re.compile(r"\s*(?:\[\d{0,2}\]?\s*)+[.!?]?\s*")
_ENDED = re.compile(r"[.!?][\"')\u201d]*(?:\s*\[\d{1,2}\])*\s*[.!?]?\s*$")  # a sentence's end, its markers after it
CUT = "cut off at the writer's token limit"
_DOI = re.compile(r"\b10\.\d{4,9}/[^\s\])>,;]+")
_URL = re.compile(r"\bhttps?://[^\s\])>,;]+|\bwww\.[^\s\])>,;]+")
_NAME = re.compile(r"\b[A-Za-z]*[A-Z][a-z0-9]*[A-Z][A-Za-z0-9-]*\b")  # two capitals or more: CiteSee, BERT
_HYPHEN_BREAK = re.compile(r"(\w)-\s+(\w)")  # "Seman- tic" as PDF text breaks lines


def _plain(text: str) -> str:
    return _HYPHEN_BREAK.sub(r"\1\2", " ".join(text.split())).lower()


def unstated(sentence: str, sources: Sequence[str], question: str = "") -> list[str]:
    """The facts of `sentence` (numbers, DOIs, addresses, capitalised names) that no text of `sources` states."""
    body = SOURCE_REF.sub(" ", sentence)
    known = " ".join([*sources, question])
    plain = _plain(known)
    missing: list[str] = []
    for link in [*_DOI.findall(body), *_URL.findall(body)]:
        if _plain(link).rstrip(".") not in plain:
            missing.append(link.rstrip("."))
    stated = numbers(known)
    bare = _URL.sub(" ", _DOI.sub(" ", body))
    missing += [_number(n) for n in sorted(numbers(bare) - stated)]
    # a figure cannot be more precise than its source: "1.0" or "24.0" where the passages say only "1" or "24"
    # (a figure, a page, a label) is made up, though it equals a stated number
    known_places = decimal_places(known)
    missing += [f"{value:.{places}f}" for value, places in decimal_places(bare).items()
                if value in stated and places > known_places.get(value, 0)]
    missing += [name for name in dict.fromkeys(_NAME.findall(bare)) if _plain(name) not in plain]
    return missing


def _number(value: float) -> str:
    return str(int(value)) if value == int(value) else str(value)


@dataclass
class Dropped:
    sentence: str
    missing: list[str]


@dataclass
class FactGate:
    """Feed it tokens; it passes on (to `emit`) only the complete sentences whose facts hold.

    `sources` are the full texts of the passages numbered [1], [2], ...; `reject`
    may refuse a sentence for another reason (prompt scaffolding, a copied
    example), returning why.
    """

    sources: Sequence[str]
    question: str = ""
    emit: Callable[[str], None] | None = None
    reject: Callable[[str], str | None] | None = None
    rewrite: Callable[[str], str] | None = None  # applied to each complete sentence before it is checked
    kept: list[str] = field(default_factory=list)
    dropped: list[Dropped] = field(default_factory=list)
    recited: int = 0  # sentences passed on citing the passage that states their facts, not the one they cited
    _buffer: str = ""

    def feed(self, text: str) -> None:
        self._buffer += text
        while True:
            match = _COMPLETE.search(self._buffer)
            if match is None or _MARKERS_ONLY.fullmatch(self._buffer[match.end():]):
                return  # wait: "... 2020). [3]" may still be settling the sentence's citation
            sentence, self._buffer = self._buffer[:match.end()], self._buffer[match.end():]
            self._settle(sentence)

    def close(self, cut: bool = False) -> str:
        """Settle what is left (the last sentence, or a cut-off one) and return the text that passed.

        With `cut` (the writing stopped at its token limit), an unfinished last sentence is dropped when a
        sentence before it passed: an answer does not end mid-word ("... could be relatively short, e")."""
        if cut and self.kept and self._buffer.strip() and not _ENDED.search(self._buffer):
            self.dropped.append(Dropped(" ".join(self._buffer.split()), [CUT]))
        elif self._buffer.strip():
            self._settle(self._buffer)
        self._buffer = ""
        return "".join(self.kept).strip()

    def check(self, sentence: str) -> list[str]:
        """Why `sentence` may not be shown: its unstated facts, or `reject`'s reason; empty when it may."""
        if self.reject is not None:
            reason = self.reject(sentence)
            if reason:
                return [reason]
        cited = [int(n) for n in SOURCE_REF.findall(sentence) if 1 <= int(n) <= len(self.sources)]
        texts = [self.sources[n - 1] for n in dict.fromkeys(cited)] if cited else list(self.sources)
        return unstated(sentence, texts, self.question)

    def _settle(self, sentence: str) -> None:
        if self.rewrite is not None and sentence.strip():
            sentence = self.rewrite(sentence)
        if not sentence.strip():
            if self.kept:  # keep line breaks between kept sentences
                self._pass(sentence)
            return
        missing = self.check(sentence)
        if missing and SOURCE_REF.search(sentence):
            stating = self._stating(sentence)
            if stating is not None and not self.check(recite(sentence, stating)):
                sentence, missing = recite(sentence, stating), []
                self.recited += 1
        if missing:
            self.dropped.append(Dropped(" ".join(sentence.split()), missing))
        else:
            self._pass(sentence if self.kept else sentence.lstrip())

    def _stating(self, sentence: str) -> int | None:
        """The passage (1-based) that states all of the sentence's facts and shares most of its words."""
        words = _words(sentence)
        stating = [(len(words & _words(text)), n) for n, text in enumerate(self.sources, start=1)
                   if not unstated(sentence, [text], self.question)]
        return max(stating)[1] if stating else None

    def _pass(self, text: str) -> None:
        self.kept.append(text)
        if self.emit is not None:
            self.emit(text)


def recite(sentence: str, n: int) -> str:
    """The sentence citing only [n], once, where its first citation stood."""
    done = False

    def swap(match: re.Match[str]) -> str:
        nonlocal done
        first, done = not done, True
        return f"{match.group(1)}[{n}]" if first else ""

    return re.sub(r"(\s*)\[\d{1,2}\]", swap, sentence)


def _words(text: str) -> set[str]:
    return set(re.findall(r"[a-z][a-z0-9-]{2,}", SOURCE_REF.sub(" ", text).lower()))
