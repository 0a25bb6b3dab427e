"""The works a turn's passages cite: in-text citations, resolved against the paper's reference list.

A teacher's answer rests on passages of the paper; those passages cite other work ("[12]",
"[33, 58]", "(Lo et al., 2020; Wang et al., 2020)", "Smith et al. (2020)"). The literature of
a turn is the works cited where the answer's support is: the sentences of each cited passage
closest to the turn's supported sentences, with their neighbours (the evidence window). Each
marker is resolved against the paper's own reference list (the References chunks the store
keeps) as "Badam et al. (2019): Elastic Documents: ..."; a marker the list does not resolve
stays as written. A reference whose title is a library paper's says so ("library paper ID").
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Sequence

import numpy as np

from paperdesk.core.agents.evidence import content_words, evidence_sentences, window

WINDOW_WORDS = 70  # the evidence window the answer's prompt shows (answer.EVIDENCE_WORDS)
TITLE_WORDS = 14
MOST = 8  # works listed per turn

_NUMERIC = re.compile(r"(?<![\w\])])\[(\d{1,3}(?:\s*[-–,;]\s*\d{1,3})*)\]")  # not an index: x[0], f()[1]
_NAME = r"[A-Z][A-Za-z'’\-]+(?:\s(?:and|&)\s[A-Z][A-Za-z'’\-]+|\set\sal\.?)?"
_YEAR = r"(?:19|20)\d\d[a-z]?"
_PAREN = re.compile(r"[(\[]((?:[^()\[\]]*?" + _NAME + r",?\s" + _YEAR + r")[^()\[\]]*)[)\]]")
_ONE = re.compile(r"(" + _NAME + r"),?\s(" + _YEAR + r")")
_NARRATIVE = re.compile(r"\b(" + _NAME + r")\s\((" + _YEAR + r")\)")
_ENTRY_YEAR = re.compile(r"\b((?:19|20)\d\d)[a-z]?\.\s+")
_STOP_NAMES = frozenset({"In", "See", "The", "Table", "Figure", "Section", "Appendix", "Eq", "Fig"})


@dataclass
class References:
    """A paper's reference list: numbered entries, or the whole text for author-year lookups."""

    numbered: dict[int, str] = field(default_factory=dict)
    text: str = ""
    library: dict[str, str] = field(default_factory=dict)  # normalised library paper title -> paper id

    @classmethod
    def of(cls, store, paper_id: str) -> "References":  # type: ignore[no-untyped-def]
        chunks = [c for c in store.chunks_of(paper_id) if c.section == "References"]
        text = _join(c.text for c in chunks)
        text = re.sub(r"^\s*(?:references|bibliography)\s+", "", text, flags=re.I)
        parts = re.split(r"(?:^|\s)\[(\d{1,3})\]\s", text)
        numbered = {int(parts[i]): parts[i + 1].strip() for i in range(1, len(parts) - 1, 2)}
        library = {_norm(p.title): p.id for p in store.list_papers() if p.id != paper_id and len(p.title.split()) >= 3}
        return cls(numbered, text, library)

    def resolve(self, marker: str) -> str:
        """The work a marker names, as the reference list has it; the marker as written when it has none."""
        if marker.startswith("["):
            entry = self.numbered.get(int(marker.strip("[]")))
            return f"{marker} {self._describe(entry)}" if entry else marker
        m = _ONE.match(marker)
        entry = self._author_year(m.group(1), m.group(2)) if m else None
        if not entry:
            return marker
        title = _title_after_year(entry)
        return f"{marker}: {title}{self._in_library(entry)}" if title else marker

    def _describe(self, entry: str) -> str:
        m = re.search(r"\.\s+(" + _YEAR + r")\.\s+", entry)  # "Authors. 2019. Title. Venue." (ACM, ACL)
        if m:
            authors, year, title = entry[: m.start()], m.group(1), _sentence(entry[m.end():])
        else:  # "Authors. Title. Venue, 2019."
            cut = re.search(r"(?<!\b[A-Z])\.\s+(?=[A-Z0-9])", entry)
            authors = entry[: cut.start()] if cut else entry
            title = _sentence(entry[cut.end():]) if cut else ""
            years = re.findall(r"(?<![\d.:/-])(" + _YEAR + r")(?![\d/–-]|\.\d)", entry)
            year = years[-1] if years else ""
        first = [w for w in re.split(r",|\sand\s", authors, maxsplit=1)[0].split()
                 if w.rstrip(".") not in ("II", "III", "IV", "Jr")]
        who = (first[-1] if first else "") + (" et al." if re.search(r",|\sand\s", authors) else "")
        head = f"{who} ({year})" if year else who
        return (f"{head}: {title}" if title else head).strip(": ") + self._in_library(entry)

    def _author_year(self, name: str, year: str) -> str | None:
        surname = re.split(r"\s(?:and|&|et)\s", name)[0].strip()
        for m in re.finditer(r"(?:^|[.?!]\s)((?:[A-Z][\w'’.-]*\s){0,3}" + re.escape(surname) + r")\b", self.text):
            rest = self.text[m.start(1): m.start(1) + 700]
            first_year = _ENTRY_YEAR.search(rest)
            if first_year and rest[first_year.start(): first_year.start() + len(year)] == year:
                return rest
        return None

    def _in_library(self, entry: str) -> str:
        flat = _norm(entry)
        found = next((pid for title, pid in self.library.items() if title and title in flat), None)
        return f" (library paper {found})" if found else ""


def in_text_citations(text: str) -> list[str]:
    """The citation markers of a text, one per cited work, in order: "[12]", "Lo et al., 2020"."""
    out: list[str] = []
    for m in _NUMERIC.finditer(text):
        for piece in re.split(r"\s*[,;]\s*", m.group(1)):
            if re.fullmatch(r"\d{1,3}\s*[-–]\s*\d{1,3}", piece):
                a, b = (int(x) for x in re.split(r"\s*[-–]\s*", piece))
                out += [f"[{n}]" for n in range(a, b + 1)] if 0 < b - a < 10 else [f"[{a}]", f"[{b}]"]
            elif piece.isdigit() and int(piece) > 0:
                out.append(f"[{int(piece)}]")
    for m in _PAREN.finditer(text):
        out += [f"{name}, {year}" for name, year in _ONE.findall(m.group(1)) if name.split()[0] not in _STOP_NAMES]
    for m in _NARRATIVE.finditer(text):
        if m.group(1).split()[0] not in _STOP_NAMES:
            out.append(f"{m.group(1)}, {m.group(2)}")
    return list(dict.fromkeys(" ".join(o.split()) for o in out))


def supporting_window(passage: str, supported: Sequence[str], words: int = WINDOW_WORDS) -> str:
    """The passage's sentences that share most content words with the supported sentences, with neighbours."""
    sentences = evidence_sentences(passage)
    if not sentences:
        return ""
    wanted = content_words(" ".join(supported))
    scores = np.array([len(wanted & content_words(s)) for s in sentences], dtype=float)
    if not scores.max():
        return ""
    return window(sentences, scores, words)


def turn_works(passages: Sequence[str], supported: Sequence[str], references: References) -> list[str]:
    """The works the turn's cited passages cite where they support its sentences, resolved, at most MOST."""
    markers: list[str] = []
    for passage in passages:
        markers += in_text_citations(supporting_window(passage, supported))
    if references.text and not references.numbered:  # an author-year list: a bracketed number cites nothing
        markers = [m for m in markers if not m.startswith("[")]
    return [references.resolve(m) for m in dict.fromkeys(markers)][:MOST]


def _join(texts) -> str:  # type: ignore[no-untyped-def]
    """Consecutive overlapping chunks as one text (each chunk's words that repeat the previous end dropped)."""
    out: list[str] = []
    for text in texts:
        words = text.split()
        k = next((n for n in range(min(len(out), len(words), 120), 0, -1) if out[-n:] == words[:n]), 0)
        out += words[k:]
    return " ".join(out)


def _sentence(text: str) -> str:
    m = re.match(r"(.+?[.?!])(?:\s|$)", text)
    words = (m.group(1) if m else text).rstrip(".").split()
    return " ".join(words[:TITLE_WORDS]) + (" ..." if len(words) > TITLE_WORDS else "")


def _title_after_year(entry: str) -> str:
    m = _ENTRY_YEAR.search(entry)
    return _sentence(entry[m.end():]) if m else ""


def _norm(text: str) -> str:
    return " ".join(re.findall(r"[a-z0-9]+", text.lower()))
