"""A generation streamed sentence by sentence, each one checked before anyone sees it.

The model's tokens are held until a sentence is finished; the sentence then
passes the same checks as the stored text: half-written citation markers, list
numbers and markdown labels ("**Setup**: ...") are cleaned, echoed prompt
scaffolding is dropped, a sentence that repeats a phrase already written (a
loop) is dropped, and what no source chunk supports (page_grounding: meaning,
words, numbers, names, DOIs) is dropped. Only what passes is emitted, with the
page citation code placed, so the streamed text is the stored text. Two loops
in a row stop the generation.
"""

from __future__ import annotations

import re
from typing import Callable

from paperdesk.core.agents import quality
from paperdesk.core.agents.claims import debris
from paperdesk.core.agents.page_grounding import PageGrounder, SectionGrounding
from paperdesk.core.cancel import CancelToken
from paperdesk.core.progress import counted
from paperdesk.core.text.abbreviations import joins, undecided

LOOPS_TO_STOP = 2
_BULLET = re.compile(r"^\s*(?:[-•*]|\d{1,2}[.)])\s+")
# a sentence that ends on a comma or a joining word was cut off (the model stopped, or broke the line there)
_UNFINISHED = re.compile(r"(?:[,;:(–-]|\b(?:and|or|but|nor|the|a|an|of|to|in|on|for|with|by|from|as|at|that|"
                         r"which|including|such as|like|than|between|into|via))\s*$", re.I)
_MARKERS = re.compile(r"\s*\[[^\]]*\]\s*")
_LIST_NUMBER = re.compile(r"^\s*\d{1,2}[.)]?\s*$")  # "1." split off a numbered item: not a sentence
_LABEL = re.compile(r"^\*\*[^*\n]{1,60}\*\*\s*:\s*")  # "**Label**: " a model puts before an item's sentence


class StopToken(CancelToken):
    """Cancelled when its parent is (the user stopped the work) or when `cancel()` is called on it."""

    def __init__(self, parent: CancelToken) -> None:
        super().__init__()
        self.parent = parent

    @property
    def cancelled(self) -> bool:
        return self.parent.cancelled or super().cancelled


class SentenceGate:
    """Feed it tokens; it emits the checked sentences and keeps the section's checked text."""

    def __init__(self, grounder: PageGrounder, emit: Callable[[str], None], stop: Callable[[], None] = lambda: None,
                 written: set[tuple[str, ...]] | None = None) -> None:
        self.grounder = grounder
        self._emit = emit
        self.on_stop = stop  # called when two repeats in a row show the generation is looping
        self.grounding = SectionGrounding("")
        self.lines: list[list[str]] = [[]]
        self.leaks = 0
        self.loops = 0
        self._loop_run = 0
        self._after_leak = False
        self._buffer = ""
        self._grams: set[tuple[str, ...]] = written if written is not None else set()
        self.raw: list[str] = []

    @property
    def text(self) -> str:
        return "\n".join(" ".join(line) for line in self.lines if line)

    @property
    def kept(self) -> int:
        return sum(len(line) for line in self.lines)

    def feed(self, token: str) -> None:
        self.raw.append(token)
        self._buffer += token
        while True:
            newline = self._buffer.find("\n")
            end = self._sentence_end()
            if newline >= 0 and (end is None or newline <= end.start()):
                piece, self._buffer = self._buffer[:newline], self._buffer[newline + 1:]
                self._sentence(piece)
                if self.lines[-1]:
                    self.lines.append([])
            elif end is not None:
                piece, self._buffer = self._buffer[: end.start()], self._buffer[end.end():]
                self._sentence(piece)
            else:
                return

    def _sentence_end(self) -> re.Match[str] | None:
        """Where the buffer's first sentence ends; not at an abbreviation's full stop ("Kim et al. (2007) show")."""
        for end in quality._SENTENCE_END.finditer(self._buffer):
            before, after = self._buffer[: end.start()], self._buffer[end.end():]
            if undecided(before, after):
                return None  # the next token tells
            if not joins(before, after):
                return end
        return None

    def finish(self, complete: bool) -> str:
        """Check what is left; a fragment cut off mid-sentence (not `complete`) is dropped. Returns the text."""
        tail, self._buffer = self._buffer.strip(), ""
        if tail and (complete or re.search(r"[.!?][\"')\]”]*$", debris(tail))):
            self._sentence(tail)
        return self.text

    def why(self) -> str:
        g = self.grounding
        parts = [f"{g.unsupported} of {counted(g.sentences, 'sentence')} unsupported" if g.sentences else "no sentence"]
        if self.loops:
            parts.append(f"{self.loops} repeated")
        if self.leaks:
            parts.append(f"{self.leaks} echoed the prompt")
        return "no supported sentence (" + ", ".join(parts) + ")"

    def _sentence(self, piece: str) -> None:
        bullet = _BULLET.match(piece)
        if _LIST_NUMBER.match(piece):
            return
        body = piece[bullet.end():] if bullet else piece.strip()
        body = debris(_LABEL.sub("", body).replace("**", ""))  # markdown emphasis is layout, not words
        if not quality.words(body) or _UNFINISHED.search(_MARKERS.sub(" ", body).rstrip(" .")):
            return
        if quality.leaks(body) or (self._after_leak and body.endswith("?")):
            self.leaks += 1
            self._after_leak = True
            return
        self._after_leak = False
        grams = _content_grams(body)
        if quality.repeated_phrases(body) or grams & self._grams:
            self.loops += 1
            self._loop_run += 1
            if self._loop_run >= LOOPS_TO_STOP:
                self.on_stop()
            return
        self._loop_run = 0
        checked = self.grounder.ground_sentence(body, self.grounding)
        if checked is None:
            return
        self._grams |= grams
        line = self.lines[-1]
        prefix = " " if line else ("\n" if any(self.lines[:-1]) else "")
        text = f"- {checked}" if bullet and not line else checked
        line.append(text)
        self._emit(prefix + text)


def _content_grams(text: str, n: int = quality.LOOP_N) -> set[tuple[str, ...]]:
    tokens = quality.words(text)
    return {g for g in (tuple(tokens[i : i + n]) for i in range(len(tokens) - n + 1))
            if any(w not in quality._STOP for w in g)}
