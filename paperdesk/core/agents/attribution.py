"""Grounding generated text in its sources: check every [n], attribute uncited sentences, extract.

A small model rarely cites and sometimes cites the wrong passage. Each
sentence is compared (sentence embedding . stored chunk embedding) with the
source passages: a model's [n] stays only when the sentence is close to
passage n; a sentence without a citation gets the closest passage when it is
close enough. When the model's text is unusable, an extractive answer quotes
the passages' sentences closest to the question instead.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field
from typing import Callable, Sequence

import numpy as np

from paperdesk.core.agents import quality
from paperdesk.core.agents.fact_gate import unstated
from paperdesk.core.agents.quality import unsupported_numbers
from paperdesk.core.text.abbreviations import rejoin

SOURCE_REF = re.compile(r"\s?\[(\d{1,2})\]")
SUPPORT = 0.4  # cosine at which a sentence counts as coming from a passage
KEEP = 0.25  # a model's own [n] is kept when the sentence is at least this close to passage n
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z0-9\"'(\[])")
# a full stop after a word with superscript reference numbers glued on ("... methods.69,104,105 The next"): the
# sentence ends after the numbers (chemistry and physics journals cite so)
_CITED_STOP = re.compile(r"((?<=[a-z)\]])[.!?]\d{1,3}(?:[,\u2013-]\d{1,3})*)\s+(?=[A-Z])")
_AFTER_STOP = re.compile(r"([.!?])\s*((?:\[\d{1,2}\])+)(?=\s|$)")  # a citation written after the full stop
_ECHO = re.compile(r"^\s*(?:Source \d+\s*\(|Sources?:|Passages?:|Q:|A \(with|Question:|Answer:|Report:)", re.I)

Encoder = Callable[[Sequence[str]], np.ndarray]


@dataclass
class Grounded:
    text: str
    removed: list[int] = field(default_factory=list)  # model citations no passage supports
    added: list[int] = field(default_factory=list)  # citations attached by similarity
    numbers_flagged: list[str] = field(default_factory=list)  # sentences whose numbers the passage lacks


def split_sentences(text: str) -> list[str]:
    out: list[str] = []
    for line in _CITED_STOP.sub(r"\1\n", text).splitlines():
        out.extend(rejoin(s.strip() for s in _SENTENCE_END.split(line) if s.strip()))
    return out


def strip_echo(text: str) -> str:
    """Drop lines where the model repeats the prompt's scaffolding instead of answering."""
    return "\n".join(line for line in text.splitlines() if not _ECHO.match(line)).strip()


def trim_loops(text: str, n: int = 4, sources: Sequence[str] = ()) -> str:
    """Cut the text where a phrase of `n` words comes back more often than `sources` (the passages it was
    written from) say it, and at least a second time: a small model's loop."""
    words = text.split()
    stated = Counter(g for source in sources for g in _word_grams(source.split(), n))
    seen: Counter[tuple[str, ...]] = Counter()
    for i, gram in enumerate(_word_grams(words, n)):
        seen[gram] += 1
        if seen[gram] > max(1, stated[gram]):
            return " ".join(words[:i]).rstrip(",;: ") + ("" if words[i - 1][-1:] in ".!?" else ".")
    return text


def _word_grams(words: Sequence[str], n: int) -> list[tuple[str, ...]]:
    return [tuple(w.lower().strip(",.;:") for w in words[i : i + n]) for i in range(len(words) - n + 1)]


def drop_copied(text: str, examples: str, n: int = 4, limit: float = 0.3) -> str:
    """Remove sentences the model copied from the prompt's worked examples (a base-model habit)."""
    seen = _ngrams(examples, n)
    kept = [s for s in split_sentences(text) if not _copied(s, seen, n, limit)]
    return " ".join(kept)


def scaffolding_check(examples: str, n: int = 4, limit: float = 0.3) -> Callable[[str], str | None]:
    """A check that names why a sentence must not be shown: it echoes the prompt or copies its examples."""
    seen = _ngrams(examples, n)

    def check(sentence: str) -> str | None:
        if _ECHO.match(sentence.strip()) or quality.leaks(sentence):
            return "echoes the prompt"
        return "copies the prompt's example" if _copied(sentence, seen, n, limit) else None

    return check


def supported_share(text: str) -> float:
    """Share of the text's sentences that cite a source [n]; 0.0 for no sentences."""
    sentences = split_sentences(text)
    return sum(1 for s in sentences if SOURCE_REF.search(s)) / len(sentences) if sentences else 0.0


def _ngrams(text: str, n: int) -> set[tuple[str, ...]]:
    words = re.findall(r"[a-z0-9]+", text.lower())
    return {tuple(words[i : i + n]) for i in range(len(words) - n + 1)}


def _copied(sentence: str, seen: set[tuple[str, ...]], n: int, limit: float) -> bool:
    grams = _ngrams(sentence, n)
    return bool(grams) and len(grams & seen) / len(grams) >= limit


def shares_words(sentence: str, passage: str, minimum: int = 2) -> bool:
    """At least `minimum` content words of the sentence occur in the passage."""
    words = {w for w in re.findall(r"[a-z]{4,}", sentence.lower()) if w not in _STOPWORDS}
    return len(words & set(re.findall(r"[a-z]{4,}", passage.lower()))) >= minimum


_STOPWORDS = frozenset("that this with from have they their there which what when were been also these those "
                       "into than then them more most such some show shows passages about other".split())


def usable(text: str, min_words: int = 4) -> bool:
    """Enough real words to be an answer (not digits, punctuation or scaffolding)."""
    return len(re.findall(r"[A-Za-z]{2,}", SOURCE_REF.sub("", text))) >= min_words


def ground(text: str, passages: np.ndarray, encode: Encoder, passage_texts: Sequence[str],
           full_texts: Sequence[str] | None = None) -> Grounded:
    """Verify and add [n] citations sentence by sentence.

    `passages` holds one unit vector per source, `passage_texts` their words: a
    citation needs both closeness in meaning and shared content words, so a
    sentence that is merely on the topic is not credited to a source. It also
    needs every number it states ("10 times", "20%") to be in the passage
    (`full_texts`, the whole chunk, when given): otherwise it loses the citation
    and is flagged. A sentence citing several passages, each stating some of its
    facts, is held to what they state together (held_by, figures_apart).
    """
    number_texts = full_texts or passage_texts
    sentences = split_sentences(_AFTER_STOP.sub(r" \2\1", text))  # "... 2020). [1]" cites "... 2020)"
    if not sentences or len(passages) == 0:
        return Grounded(text)
    vectors = encode([SOURCE_REF.sub("", s) for s in sentences])
    sims = vectors @ passages.T
    removed: list[int] = []
    added: list[int] = []
    flagged: list[str] = []
    out = []
    for i, sentence in enumerate(sentences):
        cited = [int(m) for m in SOURCE_REF.findall(sentence)]
        held = held_by(sentence, cited, number_texts)
        apart = figures_apart(sentence, held)
        bad = [n for n in cited if not 1 <= n <= len(passages)
               or (sims[i, n - 1] < KEEP and not anchored(sentence, held.get(n, "")) and n not in apart)]
        better = _better_source(sentence, sims[i], [n for n in cited if n not in bad], passage_texts, number_texts)
        if better is not None:  # the model cited a passage on the topic; another one says what the sentence says
            sentence = _cite(SOURCE_REF.sub("", sentence), better)
            added.append(better)
            out.append(sentence)
            continue
        miscounted = [n for n in cited if n not in bad and unsupported_numbers(sentence, held[n])]
        if miscounted:
            flagged.append(SOURCE_REF.sub("", sentence).strip())
            bad += miscounted
        if bad:
            removed.extend(bad)
            sentence = SOURCE_REF.sub(lambda m, bad=bad: "" if int(m.group(1)) in bad else m.group(0), sentence)
        if not SOURCE_REF.search(sentence):
            # the closest passage that states the sentence's numbers (the closest overall may not)
            close = [int(j) for j in np.argsort(-sims[i])
                     if sims[i, j] >= SUPPORT and shares_words(sentence, passage_texts[j])]
            stating = [j for j in close if not unsupported_numbers(sentence, number_texts[j])]
            if stating:
                added.append(stating[0] + 1)
                sentence = _cite(sentence, stating[0] + 1)
            elif close and not miscounted:
                flagged.append(sentence.strip())
        out.append(sentence)
    return Grounded(" ".join(out), removed, added, flagged)


_LONG_WORD = re.compile(r"[a-z][a-z0-9-]{3,}")  # a word of four letters or more: what a bare answer names
REPOINT = 0.15  # a passage this much closer than the cited one (and stating the same numbers) takes the citation


def held_by(sentence: str, cited: Sequence[int], texts: Sequence[str]) -> dict[int, str]:
    """What each source the sentence cites (1-based, in range) is held to: its own text; or, for a sentence that
    cites several ("77% [2] and 89% [3]", one figure from each), the cited texts together, for each cited
    source that states one of the sentence's facts (one that states none is held to its own text)."""
    own = {n: texts[n - 1] for n in dict.fromkeys(cited) if 1 <= n <= len(texts)}
    if len(own) < 2:
        return own
    facts = len(unstated(sentence, []))
    together = " ".join(own.values())
    return {n: together if facts and len(unstated(sentence, [text])) < facts else text for n, text in own.items()}


def figures_apart(sentence: str, held: dict[int, str]) -> set[int]:
    """The cited sources of a sentence of figures alone, no word ("77% [2] and 89% [3]."), when each states one
    of its figures (`held`, from held_by, holds them all to their texts together) and together they state every
    one; else none. A lone figure is no answer of this kind: nothing in it says what it counts."""
    joint = set(held.values())
    if len(held) < 2 or len(joint) != 1 or _LONG_WORD.search(SOURCE_REF.sub(" ", sentence).lower()):
        return set()
    return set(held) if unstated(sentence, []) and not unstated(sentence, list(joint)) else set()


def anchored(sentence: str, passage: str) -> bool:
    """The sentence states facts (numbers, names) and the passage states them all, sharing its words; or it is
    a bare answer of a few words ("pdfplumber") the passage holds. Support that holds even when the sentence
    is far from the passage in meaning ("sciSpaCy and PySBD")."""
    words = _LONG_WORD.findall(SOURCE_REF.sub(" ", sentence).lower())
    if 1 <= len(words) <= 3 and len(sentence.split()) <= 6:
        held = set(_LONG_WORD.findall(passage.lower()))
        return all(w in held for w in words) and not unstated(sentence, [passage])
    return bool(unstated(sentence, [])) and not unstated(sentence, [passage]) and shares_words(sentence, passage)


def _better_source(sentence: str, sims: np.ndarray, cited: list[int], texts: Sequence[str],
                   number_texts: Sequence[str]) -> int | None:
    """A passage (1-based) much closer to the sentence than the one it cites, stating its numbers; or None
    when the citation stands (a cited passage that states the sentence's facts always stands)."""
    if len(cited) != 1 or anchored(sentence, number_texts[cited[0] - 1]):
        return None
    if not shares_words(sentence, texts[cited[0] - 1]):  # the cited passage has none of its words: one that
        stating = [j for j in np.argsort(-sims) if anchored(sentence, number_texts[j])]  # states its facts does
        if stating:
            return int(stating[0]) + 1
    best = int(np.argmax(sims))
    if (best != cited[0] - 1 and sims[best] >= SUPPORT and sims[best] >= sims[cited[0] - 1] + REPOINT
            and shares_words(sentence, texts[best]) and not unsupported_numbers(sentence, number_texts[best])):
        return best + 1
    return None


# a console prompt (R's "R>", Python's ">>>") or R's assignment arrow: a session's code, not a sentence
_CODE = re.compile(r"(?<![\w>])(?:R>|>>>)\s|\s<-\s")


def _prose(sentence: str) -> bool:
    """A quotable sentence: 6-45 words, mostly plain lower-case words, no addresses, headings or code."""
    words = sentence.split()
    if not 6 <= len(words) <= 45 or "@" in sentence or sentence.isupper() or _CODE.search(sentence):
        return False
    plain = sum(1 for w in words if re.fullmatch(r"[a-z][a-z'-]*[.,;:]?", w))
    return plain / len(words) >= 0.6


def _cite(sentence: str, n: int) -> str:
    match = re.search(r"[.!?]+[\"')\]]*$", sentence)
    if match:
        return f"{sentence[: match.start()]} [{n}]{sentence[match.start():]}"
    return f"{sentence} [{n}]"


WHOLE = re.compile(r"^[\"\u201c(]?[A-Z0-9].*[.!?][\"\u201d')]*$")
PAPER_REF = re.compile(r"\s*\[\d+(?:\s*[,\u2013-]\s*\d+)*\]")


def extract(question_vector: np.ndarray, passages: Sequence[str], encode: Encoder, limit: int = 3) -> str:
    """The passages' sentences closest to the question, each cited, best first."""
    candidates: list[tuple[int, str]] = []
    seen: set[str] = set()
    for n, passage in enumerate(passages, start=1):
        for sentence in split_sentences(" ".join(passage.split())):
            # the paper's own reference marks ("[20]", "[21, 33]") would read as our source numbers
            sentence = PAPER_REF.sub("", sentence)
            key = re.sub(r"[\W_]+", "", sentence.lower())  # overlapping chunks may space "P =0.002" apart
            if _prose(sentence) and WHOLE.match(sentence) and key not in seen:  # whole, and once (chunks overlap)
                seen.add(key)
                candidates.append((n, sentence))
    if not candidates:
        return ""
    scores = encode([s for _, s in candidates]) @ question_vector
    order = np.argsort(-scores)[:limit]
    return " ".join(_cite(candidates[i][1], candidates[i][0]) for i in order)
