"""Whether a student's question fits the passage it was asked from: it asks about the passage's own claims.

A question is dropped (and the template question asked instead) when it
- reads a section heading as a topic ("the 1 Introduction section"): the
  paper's numbered headings, or one of its section titles called a section;
- states a number the passage does not state;
- reverses the passage's direction: the passage sentence the question is about
  (the one sharing most of its content words) says the opposite on the same
  scale (more / less, higher / lower, increase / decrease, better / worse,
  faster / slower, longer / shorter, positive / negative) about the same word;
- reverses the order of a comparison ("A over B" asked as "B over A");
- negates a finding, or drops its negation, where question and sentence state
  the same number;
- asks for a purpose, goal or motivation where the passage states no reason
  or goal (its answer would be a method);
- names a term the discussed paper never uses (another paper's name or an
  invented one): `paper_words` holds the paper's own words;
- takes a word the paper never uses from another text it was shown (the
  prompt's worked example).
"""

from __future__ import annotations

import re
from typing import Iterable, Sequence

from paperdesk.core.agents.attribution import split_sentences
from paperdesk.core.agents.claims import _TOKEN, _stem, content_words, names
from paperdesk.core.agents.evidence import stem, stems
from paperdesk.core.agents.quality import numbers, unsupported_numbers

NEAR = 3  # tokens on either side of a direction word that say what it is about
SIDE = 4  # tokens on either side of a comparison's connector that name what is compared

# each scale: the words that go up it, the words that go down it
_SCALES = [
    (r"more|greater|larger|bigger|higher|most|increas\w*|ris(?:e|es|ing)|rose|grow(?:s|th|ing)?|grew|boost\w*|"
     r"raise[sd]?|exceed\w*|above",
     r"less|fewer|smaller|lower|least|fewest|decreas\w*|reduc\w*|declin\w*|drop(?:s|ped)?|fall(?:s|ing)?|fell|"
     r"shrink\w*|below"),
    (r"better|improv\w*|outperform\w*|best", r"worse|worsen\w*|degrad\w*|underperform\w*|worst"),
    (r"faster|quicker", r"slower"),
    (r"longer", r"shorter"),
    (r"positive\w*", r"negative\w*"),
]
SCALES = [(re.compile(rf"^(?:{up})$", re.I), re.compile(rf"^(?:{down})$", re.I)) for up, down in _SCALES]
_CONNECTOR = re.compile(r"\b(?:than|over|versus|vs\.?|instead of|rather than|compared (?:to|with))\b", re.I)
_NEGATION = re.compile(r"\b(?:not|no|never|none|neither|nor|cannot|without|lack\w*|fail(?:s|ed)? to)\b|n't\b", re.I)
_PURPOSE_Q = re.compile(r"\bpurpose\b|\bgoals?\b|\baims?\b|\bmotivat\w*|\bintend\w*|\bwhat for\b", re.I)
_REASON = re.compile(
    r"\b(?:because|since|due to|so that|so as to|in order to|aim\w*|goals?|purpose\w*|motivat\w*|intend\w*|"
    r"designed to|needs?|needed|challeng\w*|problems?|reasons?|benefits?|therefore|thus|hence|why|caus\w*|"
    r"lead(?:s|ing)? to|led to|to (?:help|enable|allow|support|improve|address|reduce|avoid|ensure|make|provide|"
    r"facilitate|assist|understand|explore|study|investigate|measure|evaluate|capture|identify|examine|test|"
    r"overcome|solve|tackle|prevent|encourage|promote))\b", re.I)
_NUMBERED_HEADING = re.compile(r"(?<![\w.,$%-])\d+(?:\.\d+)*\.?\s+[A-Z][a-z]{2,}")
_QUESTION_WORDS = frozenset(stems("purpose goal aim role mean meaning explain describe why reason kind kinds type "
                                  "types main significance"))


def problems(question: str, passage: str, headings: Sequence[tuple[str, str]] = (),
             paper_words: set[str] | None = None, borrowed: str = "") -> str:
    """Why `question` does not fit `passage` ("" when it does). `headings`: (heading, title) of the paper's
    sections; `paper_words`: the discussed paper's words, lower-cased (None: not checked); `borrowed`: a
    text whose terms are not the paper's (the prompt's worked example)."""
    for why in (_heading(question, headings), _numbers(question, passage), _foreign(question, passage, paper_words),
                _borrowed(question, passage, paper_words, borrowed), _reversed(question, passage),
                _purpose(question, passage)):
        if why:
            return why
    return ""


def words_of_paper(texts: Iterable[str]) -> set[str]:
    """The lower-cased words of the paper's texts (its title and passages): what its questions may name."""
    return {w.lower() for text in texts for w in _TOKEN.findall(text)}


def _heading(question: str, headings: Sequence[tuple[str, str]]) -> str:
    flat = " ".join(question.split()).lower()
    for heading, title in headings:
        head, name = " ".join(heading.split()).lower(), re.escape(" ".join(title.split()).lower())
        if head != title.lower() and re.search(rf"(?<![\w.]){re.escape(head)}(?!\w)", flat):
            return f"reads the section heading {heading!r} as a topic"
        called = rf"\b{name}['\"”]?\s+section\b|\bsection\s+(?:titled\s+|called\s+|on\s+)?['\"“]?{name}\b"
        if name and re.search(called, flat):
            return f"reads the section heading {title!r} as a topic"
    if _NUMBERED_HEADING.search(question):
        return "reads a numbered heading as a topic"
    return ""


def _numbers(question: str, passage: str) -> str:
    missing = unsupported_numbers(question, passage)
    return f"states a number the passage does not ({missing[0]:g})" if missing else ""


def _foreign(question: str, passage: str, paper_words: set[str] | None) -> str:
    if paper_words is None:
        return ""
    known = paper_words | {w.lower() for w in _TOKEN.findall(passage)}
    for name in names(question):
        if name.lower() not in known and name.lower().removesuffix("s") not in known:
            return f"names a term the paper does not use ({name})"
    return ""


def _borrowed(question: str, passage: str, paper_words: set[str] | None, borrowed: str) -> str:
    """A content word of the question that the paper (or, without its words, the passage) lacks and `borrowed`
    has: the question took a term from another text."""
    if not borrowed:
        return ""
    own = {_stem(w) for w in (paper_words or set())} | {_stem(w) for w in _TOKEN.findall(passage)}
    theirs = {_stem(w) for w in content_words(borrowed)}
    taken = [w for w in content_words(question) if _stem(w) not in own and _stem(w) in theirs]
    return f"takes a term from another text ({taken[0]})" if taken else ""


def _content(text: str) -> set[str]:
    return stems(text) - _QUESTION_WORDS - {stem(w) for w in _direction_words(text)}


def _direction_words(text: str) -> list[str]:
    return [w for w in re.findall(r"[A-Za-z]+", text) if any(up.match(w) or down.match(w) for up, down in SCALES)]


def about(question: str, passage: str) -> list[str]:
    """The passage's sentences the question is about: those sharing the most of its content words (at least
    two, or its only one)."""
    asked = _content(question)
    if not asked:
        return []
    scored = [(len(asked & _content(s)), s) for s in split_sentences(" ".join(passage.split()))]
    best = max((n for n, _ in scored), default=0)
    if best < min(2, len(asked)):
        return []
    return [s for n, s in scored if n == best]


def _reversed(question: str, passage: str) -> str:
    for sentence in about(question, passage):
        for why in (_direction(question, sentence), _order(question, sentence), _negation(question, sentence)):
            if why:
                return why
    return ""


def _marks(text: str) -> list[tuple[int, int, set[str]]]:
    """(scale, +1 up / -1 down, the content stems near the word) of each direction word in `text`."""
    tokens = re.findall(r"[A-Za-z][\w'-]*", text)
    out = []
    for i, token in enumerate(tokens):
        for scale, (up, down) in enumerate(SCALES):
            sign = 1 if up.match(token) else -1 if down.match(token) else 0
            if sign:
                near = " ".join(tokens[max(0, i - NEAR): i] + tokens[i + 1: i + 1 + NEAR])
                out.append((scale, sign, _content(near)))
    return out


def _direction(question: str, sentence: str) -> str:
    theirs = _marks(sentence)
    for scale, sign, near in _marks(question):
        same = [n for s, g, n in theirs if s == scale and g == sign and n & near]
        opposite = [n for s, g, n in theirs if s == scale and g == -sign and n & near]
        if opposite and not same:
            return "reverses the direction its passage states"
    return ""


def _sides(text: str) -> list[tuple[set[str], set[str]]]:
    out = []
    for m in _CONNECTOR.finditer(text):
        left = " ".join(re.findall(r"[A-Za-z][\w'-]*", text[: m.start()])[-SIDE:])
        right = " ".join(re.findall(r"[A-Za-z][\w'-]*", text[m.end():])[:SIDE])
        out.append((_content(left), _content(right)))
    return out


def _order(question: str, sentence: str) -> str:
    """A word before the question's connector is after the sentence's, and one after it before: the two
    things compared swapped places (words on both sides of either, like a shared head noun, say nothing)."""
    for q_left, q_right in _sides(question):
        for s_left, s_right in _sides(sentence):
            if (q_left - q_right) & (s_right - s_left) and (q_right - q_left) & (s_left - s_right):
                return "reverses the order of the comparison its passage states"
    return ""


def _negation(question: str, sentence: str) -> str:
    if numbers(question) & numbers(sentence) and bool(_NEGATION.search(question)) != bool(_NEGATION.search(sentence)):
        return "negates the finding its passage states" if _NEGATION.search(question) else \
            "drops the negation of the finding its passage states"
    return ""


def _purpose(question: str, passage: str) -> str:
    if _PURPOSE_Q.search(question) and not _REASON.search(passage):
        return "asks for a purpose its passage does not state"
    return ""
