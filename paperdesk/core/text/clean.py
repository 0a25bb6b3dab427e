"""Text that is safe to show in a terminal: no escape sequences, no control characters.

Text from outside (a PDF's text layer, a model's output) can hold ESC [ ... m
colour codes, cursor moves, OSC title or hyperlink sequences, a bell, a
carriage return that overwrites the line, or their 8-bit C1 forms. Shown raw,
they act on the user's terminal. `CONTROLS` is the translation table ingest
applies to every line of PDF text; `strip_controls` removes whole escape
sequences first (so no "[31m" is left behind), then the same characters; and
`ControlStripper` does that to a stream of model pieces, where a sequence can
be split across two pieces. Newlines and tabs stay.
"""

from __future__ import annotations

import re

_KEEP = {"\n", "\t"}
# C0 controls but newline and tab, DEL, and the C1 controls (U+0080-U+009F): the terminal acts on all of them.
CONTROLS: dict[int, None] = {c: None for c in [*range(0x20), *range(0x7F, 0xA0)] if chr(c) not in _KEEP}

# ESC or its 8-bit form, then: CSI parameters and a final byte; an OSC/DCS/SOS/PM/APC string up to its
# terminator (BEL or ESC \); or a short escape (ESC 7, ESC ( B ...).
_SEQUENCE = re.compile(
    r"(?:\x1b\[|\x9b)[0-?]*[ -/]*[@-~]"
    r"|(?:\x1b[\]PX^_]|[\x90\x98\x9d\x9e\x9f])[^\x07\x1b\x9c]*(?:\x07|\x1b\\|\x9c)"
    r"|\x1b[ -/]*[0-OQ-WYZ\\`-~]"  # not [ ] P X ^ _, which open the longer forms above
)
# The beginnings of those, cut off by the end of the text.
_OPEN = re.compile(
    r"(?:\x1b\[|\x9b)[0-?]*[ -/]*\Z"
    r"|(?:\x1b[\]PX^_]|[\x90\x98\x9d\x9e\x9f])[^\x07\x1b\x9c]*\x1b?\Z"
    r"|\x1b[ -/]*\Z"
)
_STARTS = re.compile(r"[\x1b\x90\x98\x9b\x9d\x9e\x9f]")
# A sequence left open at the end of a piece is held back this long for its end; past that it is dropped.
_HOLD = 256


def strip_controls(text: str) -> str:
    """`text` with escape sequences and control characters (but newlines and tabs) removed."""
    if text.isprintable():  # the common case: nothing to do (isprintable is False for \n and \t too)
        return text
    return _SEQUENCE.sub("", text.replace("\r\n", "\n")).translate(CONTROLS)


class ControlStripper:
    """`strip_controls` over a stream of pieces: feed each, then `flush` once at the end."""

    def __init__(self) -> None:
        self._held = ""

    def feed(self, piece: str) -> str:
        text = self._held + piece
        self._held = ""
        start = _open_sequence(text)
        if start is not None:
            text, self._held = text[:start], text[start:]
        return strip_controls(text)

    def flush(self) -> str:
        text, self._held = self._held, ""
        return strip_controls(text)


def _open_sequence(text: str) -> int | None:
    """Where an escape sequence starts that is not finished by the end of `text` but may be in the next piece."""
    pos = max(0, len(text) - _HOLD)
    while (found := _STARTS.search(text, pos)) is not None:
        done = _SEQUENCE.match(text, found.start())
        if done is not None:
            pos = done.end()  # a whole sequence (its own ESC \ terminator included): strip it now
        elif _OPEN.match(text, found.start()):
            return found.start()
        else:
            pos = found.start() + 1  # a stray ESC: its character goes, the text after it stays
    return None
