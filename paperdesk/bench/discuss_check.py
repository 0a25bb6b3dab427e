"""`bench discuss`'s own checks of a finished discussion, written apart from the teacher's gate.

Supported: a stored teacher sentence cites a page ([p. N], [pp. N-M], [ID, p. N])
and that page states it: every number in the sentence is on the page, every
word with two capitals (a name like S2ORC, GROBID) is on the page, and at
least 70% of its longer words (5+ letters, by their first five letters) are on
the page. A "not found" answer is supported when its quote is on the page, word
for word. Repeated: a question whose words (4+ letters) are mostly (60%, of the
smaller question, of two or more) an earlier question's, or the same text.
"""

from __future__ import annotations

import re
import unicodedata
from typing import Callable, Sequence

WORDS_ON_PAGE = 0.7
REPEATED = 0.6
_MARK = re.compile(r"\[(?:(?P<paper>[^\],]+), )?pp?\. (?P<first>\d+)(?:-(?P<last>\d+))?\]")
_ARXIV = re.compile(r"\[arXiv:[^\]]+\]")
_NUMBER = re.compile(r"(?<![\w.])\d+(?:[.,]\d+)*")
_NAME = re.compile(r"\b[A-Za-z]*[A-Z][a-z0-9]*[A-Z][A-Za-z0-9]*\b")
_WORD = re.compile(r"[a-z]+")
_FOOTNOTE_MARK = re.compile(r"(?<= )\d{1,2}(?= )")  # "the SpaCy library 27 en_core_web_sm": a footnote's number
_QUOTE = re.compile(r'"(.+)"\s*(\[[^\]]+\])')
_COMMON = frozenset("about above after again against along among because before being below between could "
                    "during every first further having other their there these those through under until where "
                    "which while would paper papers authors study section shows describes".split())

PageText = Callable[[str, int], str]  # (paper id, page) -> the page's text


def _flat(text: str) -> str:
    text = unicodedata.normalize("NFKC", text)  # ligatures as letters: "ﬁve" is "five"
    text = re.sub(r"(\w)-\s+(\w)", r"\1\2", text)
    return " ".join(re.sub(r"[^a-z0-9.%]+", " ", text.lower()).split())


def split(answer: str) -> list[str]:
    """Sentences, a citation mark staying with the sentence it ends."""
    masked = re.sub(r"\[[^\]\n]{0,60}\]", lambda m: m.group(0).replace(" ", "\x01").replace(".", "\x02"), answer)
    parts = re.split(r"(?<=[.!?])\s+(?=[A-Z\"(])", masked)
    return [p.replace("\x01", " ").replace("\x02", ".").strip() for p in parts if p.strip()]


def _pages(sentence: str, own: str, page_text: PageText) -> list[str]:
    out = []
    for m in _MARK.finditer(sentence):
        first = int(m.group("first"))
        last = int(m.group("last") or first)
        paper = (m.group("paper") or own).strip()
        out += [page_text(paper, p) for p in range(first, min(last, first + 3) + 1)]
    return out


def sentence_supported(sentence: str, own: str, page_text: PageText) -> bool:
    pages = _pages(sentence, own, page_text)
    if not pages:
        return bool(_ARXIV.search(sentence))  # an arXiv abstract is not a page this check can read
    page = " ".join(pages)
    flat = _flat(page)
    body = _ARXIV.sub(" ", _MARK.sub(" ", sentence))
    quoted = _QUOTE.search(sentence)
    if quoted:  # the "not found" answer's quote: on the page word for word (a footnote mark may sit inside)
        quote = _flat(quoted.group(1).rstrip(". "))
        return quote in flat or quote in " ".join(_FOOTNOTE_MARK.sub(" ", flat).split())
    numbers = {n.replace(",", "") for n in _NUMBER.findall(page)}
    if any(n.replace(",", "") not in numbers for n in _NUMBER.findall(body)):
        return False
    lower = page.lower()
    if any(name.lower() not in lower for name in _NAME.findall(body)):
        return False
    longer = [w for w in _WORD.findall(body.lower()) if len(w) >= 5 and w not in _COMMON]
    if not longer:
        return True
    prefixes = {w[:5] for w in _WORD.findall(lower) if len(w) >= 5}
    return sum(1 for w in longer if w[:5] in prefixes) / len(longer) >= WORDS_ON_PAGE


def supported(answers: Sequence[str], own: str, page_text: PageText) -> tuple[int, int]:
    """(sentences supported by their cited page, sentences) over the stored answers."""
    good = total = 0
    for answer in answers:
        quoted = _QUOTE.search(answer)
        parts = [answer] if quoted else split(answer)
        for sentence in parts:
            total += 1
            good += sentence_supported(sentence, own, page_text)
    return good, total


def _content(question: str) -> set[str]:
    return {w for w in _WORD.findall(question.lower()) if len(w) >= 4 and w not in _COMMON
            and w not in ("what", "does", "this", "that", "with", "from", "have", "mean", "more", "about")}


def repeated(questions: Sequence[str]) -> int:
    """How many questions repeat an earlier one of the same discussion."""
    count = 0
    for i, q in enumerate(questions):
        mine = _content(q)
        for earlier in questions[:i]:
            theirs = _content(earlier)
            same = q.strip().lower() == earlier.strip().lower()
            if min(len(mine), len(theirs)) < 2:  # a one-word question ("more about 'information'") repeats only
                close = bool(mine) and mine == theirs  # the same word asked again
            else:
                close = len(mine & theirs) / min(len(mine), len(theirs)) >= REPEATED
            if same or close:
                count += 1
                break
    return count
