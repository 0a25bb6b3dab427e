"""What a paper is about, computed: its sections (from chunks' `section` field) and its key terms.

Key terms are words and two-word phrases frequent in the paper and rare in the
rest of the library (tf x idf over the other papers' chunks), so a 270M model
is steered to the paper's own vocabulary instead of generic words.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from dataclasses import dataclass, field
from typing import Sequence

from paperdesk.core.agents.attribution import split_sentences
from paperdesk.core.agents.summarizer import SKIP_SECTIONS
from paperdesk.core.db.store import Chunk, Store
from paperdesk.core.ingest.tables import is_table_section

MAX_TERMS = 12
_NUMBERING = re.compile(r"^\s*(?:[A-Z]?\d+(?:\.\d+)*\.?|[IVX]+\.)\s+")
_TAG = re.compile(r"^\[[^\]]{1,6}\]\s*")
STOPWORDS = frozenset("""
a about above across after again against all almost also although always among an and another any are around as at
be because been before being below between both but by can could did do does doing done during each either else
even ever every few for from further had has have having her here hers him his how however i if in into is it its
itself just least less like made make makes many may might more most much must my near need neither no nor not now
of off often on once one only or other others our ours out over own per perhaps rather same several she should since
so some still such than that the their theirs them themselves then there therefore these they this those though
through thus to too toward towards under until up upon us use used uses using very via was we well were what when
where whether which while who whom whose why will with within without would yet you your
paper papers work works approach approaches result results show shows shown table figure fig section sections study
studies based new first second third two three four five six also et al e.g i.e etc one way ways example examples
different number use user users data found find finding findings following provide provides provided however
able allow allows within across time times see seen given present presented propose proposed method methods
important related future current previous prior across particular general specific overall especially likely
""".split())


@dataclass
class Section:
    heading: str  # as in the paper, numbering kept
    title: str  # numbering and tags removed: what a question names
    pages: tuple[int, int]
    chunk_ids: list[int] = field(default_factory=list)
    kind: str = "section"  # section, method or critique: what kind of question it invites


@dataclass
class Term:
    text: str
    count: int
    definition: str  # the paper's first sentence that uses it
    page: int


@dataclass
class Outline:
    paper_id: str
    title: str
    sections: list[Section]
    terms: list[Term]

    def section_of(self, heading: str) -> Section | None:
        return next((s for s in self.sections if s.heading == heading), None)


def clean_heading(heading: str) -> str:
    return _TAG.sub("", _NUMBERING.sub("", heading)).strip() or heading.strip()


def _kind(title: str) -> str:
    low = title.lower()
    if any(w in low for w in ("limitation", "future work", "threat", "discussion", "weakness")):
        return "critique"
    if any(w in low for w in ("method", "approach", "design", "system", "implementation", "model", "algorithm")):
        return "method"
    return "section"


def body_chunks(chunks: Sequence[Chunk]) -> list[Chunk]:
    return [c for c in chunks if c.section and not any(s in c.section.lower() for s in SKIP_SECTIONS)
            and not is_table_section(c.section)]  # a table's rows: evidence to cite, not a section to discuss


def words_of(text: str) -> list[str]:
    return [w for w in re.findall(r"[a-z][a-z-]{2,}", text.lower()) if w.strip("-") == w]


def candidate_terms(text: str) -> list[str]:
    """Content words and two-word phrases of content words, in order."""
    words = words_of(text)
    out = [w for w in words if w not in STOPWORDS and len(w) >= 4]
    out += [f"{a} {b}" for a, b in zip(words, words[1:]) if a not in STOPWORDS and b not in STOPWORDS
            and len(a) >= 3 and len(b) >= 3]
    return out


def build_outline(store: Store, paper_id: str, title: str) -> Outline:
    """Sections in reading order and the key terms of one paper."""
    chunks = store.chunks_of(paper_id)
    body = body_chunks(chunks)
    sections: dict[str, Section] = {}
    for c in body:
        if c.section.lower().startswith("abstract"):
            continue
        s = sections.get(c.section)
        if s is None:
            t = clean_heading(c.section)
            s = sections[c.section] = Section(c.section, t, (c.page_start, c.page_end), [], _kind(t))
        s.pages = (min(s.pages[0], c.page_start), max(s.pages[1], c.page_end))
        s.chunk_ids.append(c.id)
    return Outline(paper_id, title, list(sections.values()), key_terms(store, paper_id, body or chunks))


def key_terms(store: Store, paper_id: str, body: Sequence[Chunk], limit: int = MAX_TERMS) -> list[Term]:
    tf: Counter[str] = Counter()
    for c in body:
        tf.update(candidate_terms(c.text))
    other = [r[0] for r in store.query("SELECT text FROM chunks WHERE paper_id != ?", (paper_id,))]
    df: Counter[str] = Counter()
    for text in other:
        df.update(set(candidate_terms(text)))
    scored = []
    for term, count in tf.items():
        phrase = " " in term
        if count < (2 if phrase else 3):
            continue
        idf = math.log((len(other) + 2) / (df[term] + 1))
        scored.append((count * idf * (3.0 if phrase else 1.0), term))
    chosen: list[str] = []
    for _, term in sorted(scored, key=lambda x: (-x[0], x[1])):
        # a word inside a chosen phrase, or another form of a chosen word, says the same thing twice
        if any(term in c.split() or term.rstrip("s") == c.rstrip("s") for c in chosen):
            continue
        chosen.append(term)
        if len(chosen) == limit:
            break
    return [_term(t, tf[t], body) for t in chosen]


def _term(term: str, count: int, body: Sequence[Chunk]) -> Term:
    """The term with the paper's sentence that best says what it is: a defining one, else the first use."""
    escaped = re.escape(term).replace(r"\ ", r"\s+")
    pattern = re.compile(r"\b" + escaped + r"\b", re.I)
    defining = re.compile(r"\b" + escaped + r"s?\b[^.]{0,30}\b(?:is|are|refers? to|means?|denotes?|called|defined)\b"
                          r"|\b(?:we call|called|termed|known as|we define)\b[^.]{0,30}\b" + escaped, re.I)
    first: Term | None = None
    for c in body:
        if not pattern.search(c.text):
            continue
        for sentence in split_sentences(" ".join(c.text.split())):
            if pattern.search(sentence) and 5 <= len(sentence.split()) <= 60:
                if defining.search(sentence):
                    return Term(term, count, sentence, c.page_start)
                first = first or Term(term, count, sentence, c.page_start)
        first = first or Term(term, count, "", c.page_start)
    return first or Term(term, count, "", 0)


def mentions(text: str, term: str) -> bool:
    return re.search(r"\b" + re.escape(term).replace(r"\ ", r"\s+") + r"s?\b", text, re.I) is not None
