"""Evidence that fits the question: which passages an answer is written from, and which of their words.

Search ranks chunks for a reader; an answer needs the few sentences that state
the fact. So: reference lists, acknowledgements and front-matter boilerplate
are never answer evidence (they stay searchable) unless the question is about
citations or funding; the candidates are re-ranked for the question (their best
sentence's closeness in meaning and the share of the question's words it holds,
each word weighted by how rare it is among the candidates, so "SentencePredictor"
counts for more than "paper"; a sentence of the kind of fact asked for, such as
an amount of money for "how much were they paid" or a count of the thing a
"how many" question names; and the section a question of that kind wants: a
"what problem" question wants the abstract or introduction, a limitation
question the limitations). A passage from another paper than the best one's
is read only when it fits nearly as well (a stray figure from an unrelated
paper is the likeliest wrong answer). Each passage is cut to its best sentence
with its neighbours, so a number keeps its context and the prompt stays short,
plus any sentence that fits nearly as well as the best one.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from dataclasses import dataclass
from typing import TYPE_CHECKING, Sequence

import numpy as np

from paperdesk.core.agents.attribution import split_sentences
from paperdesk.core.text import metric_names

if TYPE_CHECKING:
    from paperdesk.core.library.library import Hit, Library
    from paperdesk.core.search.embedder import Embedder
    from paperdesk.core.search.reader import SentenceReader

    SentenceEncoder = Embedder | SentenceReader  # what scores sentences: search's embedder or the reader

BOILERPLATE_SECTIONS = ("references", "bibliography", "acknowledg", "front matter", "keywords", "author contribution",
                        "funding", "ccs concepts", "acm reference", "works cited", "literature cited")
_CITATION_QUESTION = re.compile(
    r"\b(references?|reference list|bibliography|acknowledge?ments?|fund(?:ed|ing|s)?|grants?|thank\w*|sponsor\w*)\b"
    r"|\b(?:which|what) (?:papers?|works?|studies|articles?)\b.{0,60}\bcit(?:e|es|ed|ing)\b", re.I)
# a reference list's look; not "et al., 2019": body text cites that way (a table of tools may cite one a line)
_BIB_MARKS = re.compile(r"\bIn Proceedings\b|\barXiv(?: preprint)?\b|doi\.org|"
                        r"\b(?:19|20)\d\d\.\s+[A-Z]|\bpp?\.\s?\d+|\bVol\.\s?\d+|\bConference on\b|\bJournal of\b")
_FRONT_MATTER = re.compile(r"Permission to make digital or hard copies|ACM Reference Format|\bISBN\b|©|"
                           r"Copyright held by|Publication rights licensed|^\s*(?:CCS CONCEPTS|KEYWORDS)\b|@\w+\.\w+",
                           re.I)
_WORD = re.compile(r"[a-z][a-z0-9-]{2,}")
_PLAIN = re.compile(r"\w+")  # every word and number, for telling whether a sentence was shown already
_STOP = frozenset("the and for are was were what which does did how many much paper papers authors author this that "
                  "with from have has into their they them its use used using about between when where who why "
                  "according name named point out make give says said show shows can could would should".split())

# question kind -> section names that answer it (first match wins), and sentence words that mark it
_ROLES: list[tuple[re.Pattern[str], tuple[str, ...], re.Pattern[str] | None]] = [
    (re.compile(r"\b(limitations?|drawbacks?|weakness\w*|shortcomings?|bias\w*|future work|caveats?)\b", re.I),
     ("limitation", "future", "discussion", "conclusion", "ethic", "social impact"),
     re.compile(r"\b(limit\w*|bias\w*|not without|drawback|fail\w*|cannot|future|only|however|requires?)\b", re.I)),
    (re.compile(r"\b(what problem|which problem|motivat\w*|why (?:do|did|is|are)|goal|aims?|purpose|address)\b", re.I),
     ("abstract", "introduction"), None),
    (re.compile(r"\b(how many|how much|how long|number of|what share|what percentage|what fraction|average|"
                r"increase|decrease|size|paid|cost)\b", re.I),
     (), re.compile(r"\d|\b(one|two|three|four|five|six|seven|eight|nine|ten|twice|half)\b", re.I)),
]
# question kind -> what a sentence that answers it says, in words of no paper: a sentence's closeness in meaning
# to this description lifts it. A limitation is seldom named as one ("due to space we used X instead of Y"), so
# the marking words above miss most; the sentence embedder reads the sense. Only the limitation kind has one.
_INTENTS = {0: "A limitation of the work: a weakness, drawback or shortcoming of its method, data or results, "
               "or a reason its findings may not hold."}
INTENT_WEIGHT = 0.3  # per unit of a sentence's cosine to the kind's description above its passage's mean
ROLE_BONUS = 0.15  # a wanted section's lift, in cosine units
OTHER_PAPER = 0.2  # a passage from another paper than the best passage's is evidence only this close to it
SPREAD = 0.3  # research: each paper whose best passage fits this close to the best one gives a passage
NAMED_BONUS = 0.1  # the lift of passages from a paper the question names ("in CiteSee", "Multi-LexSum's")
# a sentence holding all of the question's words (rarity-weighted) gains this much: as much as a wide gap in
# meaning, because the small sentence embedder reads a paper's own terms (a package, a dataset, a measure) weakly
WORD_WEIGHT = 0.5
ANSWER_BONUS = 0.12  # a sentence stating the kind of fact asked for (an amount paid, a count of the thing named)

# what kind of fact a question asks for -> how a sentence that states one looks
_NUMBER = r"(?:\d[\d,.]*|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|dozen|hundred|thousand)"
_MONEY_Q = re.compile(r"\b(paid|pay|payment|compensat\w*|cost\w*|price\w*|spen[dt]|budget|reward\w*)\b", re.I)
_MONEY = re.compile(r"[$€£¥]\s?\d|\b\d[\d,.]*\s?(?:USD|EUR|GBP|dollars?|euros?|pounds)\b", re.I)
_SHARE_Q = re.compile(r"\b(what|which) (share|percentage|fraction|proportion|rate)\b|\bhow often\b|\bincrease\b|"
                      r"\bdecrease\b|\bhow much (more|less|faster|slower|better|worse)\b", re.I)
_SHARE = re.compile(r"\d\s?%|\bpercent\b|\b\d+(?:\.\d+)?\s?(?:x|×|times|-fold|fold)\b|\b(?:twice|half)\b", re.I)
_LENGTH_Q = re.compile(r"\bhow (long|short)\b|\blengths?\b", re.I)
_LENGTH = re.compile(rf"\b{_NUMBER}(?:\s(?:or|to|-)\s{_NUMBER})?\s?(?:words?|sentences?|tokens?|pages?|characters?|"
                     r"paragraphs?|lines?|seconds?|minutes?|hours?|days?|weeks?|months?|years?)\b", re.I)
_HOW_MANY = re.compile(r"\bhow many\s+((?:[\w-]+\s+){0,2}?[\w-]+?)(?:\s+(?:did|do|does|were|was|are|is|has|have|"
                       r"took|take|in|of|for|per)\b|[?,.]|$)", re.I)


def about_citations(question: str) -> bool:
    """The question asks what a paper cites, thanks or was funded by: then references are evidence."""
    return bool(_CITATION_QUESTION.search(question))


def is_boilerplate(section: str, text: str) -> bool:
    """A reference list, acknowledgements or front matter, by its section label or, unlabelled, by its look."""
    label = section.lower()
    if any(name in label for name in BOILERPLATE_SECTIONS):
        return True
    words = max(len(text.split()), 1)
    return len(_BIB_MARKS.findall(text)) * 40 >= words  # one bibliography mark per 40 words: a reference list


def content_words(text: str) -> set[str]:
    return {w for w in _WORD.findall(text.lower()) if w not in _STOP}


def evidence_sentences(text: str) -> list[str]:
    """The chunk's sentences (a bulleted item is one), without front-matter boilerplate (permissions, ISBN,
    e-mail lines); a table's rows with their abbreviated column names spelled out ("R-1f1 (ROUGE-1 F1): 48.79")."""
    flat = " ".join(metric_names.inline(text).split())
    return [s.strip() for sentence in split_sentences(flat) for s in _BULLET.split(sentence)
            if s.strip() and not _FRONT_MATTER.search(s)]


_BULLET = re.compile(r"\s[•▪◦●]\s")


def answer_marks(question: str) -> re.Pattern[str] | None:
    """How a sentence stating the fact asked for looks: an amount of money for "how much ... paid", a share for
    "what share", a length for "how long", a count of the named thing for "how many participants"."""
    if re.search(r"\bhow much\b", question, re.I) and _MONEY_Q.search(question):
        return _MONEY
    if _SHARE_Q.search(question):
        return _SHARE
    if _LENGTH_Q.search(question):
        return _LENGTH
    asked = _HOW_MANY.search(question)
    if asked:
        noun = asked.group(1).split()[-1].lower()
        stem = re.escape(noun[:-1] if noun.endswith("s") and len(noun) > 3 else noun)
        return re.compile(rf"\b{_NUMBER}\s+(?:[\w-]+\s+){{0,3}}?{stem}\w*|\b{stem}\w*\s*\((?:n\s?=\s?)?\d+\)|"
                          rf"\b{stem}\w*\s*(?:of|was|were|is|are|:)?\s*{_NUMBER}\b", re.I)
    return None


def word_weights(question: str, sentences: Sequence[str]) -> dict[str, float]:
    """The question's words (and the acronyms its phrases have among the sentences: "large language models" is
    "llms"), each weighted by its rarity among `sentences`; words no sentence holds are left out."""
    wanted = stems(question) | _acronyms(question, sentences)
    frequency = Counter(w for s in sentences for w in stems(s) & wanted)
    n = len(sentences) or 1
    return {w: math.log(1 + n / df) for w, df in frequency.items()}


def _acronyms(question: str, sentences: Sequence[str]) -> set[str]:
    """Upper-case acronyms in `sentences` ("LLMs") spelled by the initials of a run of the question's words."""
    words = re.findall(r"[a-z][\w-]*", question.lower())
    runs = {"".join(w[0] for w in words[i:j]) for i in range(len(words)) for j in range(i + 2, min(i + 6, len(words)) + 1)}
    found = {letters.lower() for letters in re.findall(r"\b([A-Z]{3,6})s?\b", " ".join(sentences))}
    return {form for letters in found & runs for form in (letters, letters + "s")}


def coverage(weights: dict[str, float], sentence: str) -> float:
    """The rarity-weighted share of the question's words the sentence holds (0 to 1)."""
    total = sum(weights.values())
    held = stems(sentence)
    return sum(v for w, v in weights.items() if w in held) / total if total else 0.0


_SUFFIXES = ("ations", "ation", "ities", "ity", "ies", "ing", "ed", "es", "s", "ly")


def stem(word: str) -> str:
    """A crude stem, enough to tie "limitations" to "limited" and "summaries" to "summary"."""
    for suffix in _SUFFIXES:
        if word.endswith(suffix) and len(word) - len(suffix) >= 4:
            return word[:-len(suffix)] + ("y" if suffix == "ies" else "")
    return word


def stems(text: str) -> set[str]:
    return {stem(w) for w in content_words(text)}


def _role(question: str) -> tuple[tuple[str, ...], re.Pattern[str] | None]:
    for pattern, sections, marks in _ROLES:
        if pattern.search(question):
            return sections, marks
    return (), None


def intent_vector(question: str, encoder: "SentenceEncoder") -> np.ndarray | None:
    """The embedding of what an answer of the question's kind says (`_INTENTS`), or None for other kinds."""
    kind = next((i for i, (pattern, _, _) in enumerate(_ROLES) if pattern.search(question)), None)
    if kind not in _INTENTS:
        return None
    return np.asarray(encoder.encode([_INTENTS[kind]]))[0]


# "the <description> paper": how a question names one paper by what it is about
_DESCRIBED = re.compile(r"\b(?:the|this|that)\s+((?:[\w'’().-]+\s+){1,8}?)"
                        r"(?:paper|study|article|survey|vignette|report|letter|review)\b", re.I)
DESCRIBED_WORDS = 2  # a description names a paper whose title holds at least this many of its words


def named_papers(question: str, hits: Sequence["Hit"], described: bool = False) -> set[str]:
    """Papers whose short title (before its colon, e.g. "CiteSee", "Multi-LexSum") the question names; with
    `described`, else the one paper a description names ("the Arctic ice-edge bloom paper")."""
    asked = " ".join(question.lower().replace("’", "'").split())
    named = set()
    for hit in hits:
        short = hit.title.split(":", 1)[0].strip().lower()
        if 3 <= len(short) <= 40 and re.search(rf"(?<![a-z0-9]){re.escape(short)}(?![a-z0-9])", asked):
            named.add(hit.paper_id)
    return named or (described_paper(question, hits) if described else set())


def described_paper(question: str, hits: Sequence["Hit"]) -> set[str]:
    """The one paper whose title holds at least two of a description's words and half of them, more than
    any other title among `hits` does, as a set of its id (empty when none or a tie)."""
    titles = {h.paper_id: stems(h.title) for h in hits}
    for description in _DESCRIBED.findall(question):
        words = stems(description)
        held = sorted(((len(words & title), pid) for pid, title in titles.items()), reverse=True)
        if not held:
            continue
        most, pid = held[0]
        runner_up = held[1][0] if len(held) > 1 else 0
        if most >= DESCRIBED_WORDS and most >= len(words) / 2 and most > runner_up:
            return {pid}
    return set()


def _sentence_scores(question: str, qvec: np.ndarray, sentences: Sequence[str], vectors: np.ndarray,
                     weights: dict[str, float], intent: np.ndarray | None = None) -> tuple[np.ndarray, int | None]:
    """Each sentence's fit to the question; and the best-fitting one that states the kind of fact asked for.
    With `intent` (`intent_vector`), a sentence closer in meaning to what such an answer says than the others
    scored with it gains INTENT_WEIGHT per unit of cosine (and one less close loses as much)."""
    _, marks = _role(question)
    kind = answer_marks(question)
    scores = vectors @ qvec
    if intent is not None and len(sentences):
        sense = vectors @ intent
        scores = scores + INTENT_WEIGHT * (sense - sense.mean())
    typed: list[int] = []
    for i, s in enumerate(sentences):
        scores[i] += WORD_WEIGHT * coverage(weights, s)
        if kind is not None and kind.search(s):
            scores[i] += ANSWER_BONUS
            typed.append(i)
        elif marks is not None and marks.search(s):
            scores[i] += ROLE_BONUS / 2
    return scores, max(typed, key=lambda i: scores[i]) if typed else None


SECOND_MARGIN = 0.15  # a sentence this close to the best one's score joins the window, even when not beside it


def window(sentences: Sequence[str], scores: np.ndarray, words: int, also: int | None = None,
           extras: bool = True, keep: int | None = None) -> str:
    """The best sentence with its neighbours (before, then after) while they fit in `words`; sentence `keep`
    (one no longer than `words`, after a gap mark "…" when not beside them); and, up to half as many words
    again, sentence `also` (the best of those stating the kind of fact asked for) and the other sentences
    that score nearly as well, each after a gap mark."""
    best = int(np.argmax(scores))
    lo = hi = best
    size = len(sentences[best].split())
    while True:
        grown = False
        for j in (lo - 1, hi + 1):
            if 0 <= j < len(sentences) and size + len(sentences[j].split()) <= words:
                size += len(sentences[j].split())
                lo, hi = min(lo, j), max(hi, j)
                grown = True
        if not grown:
            break
    if size > words * 1.5:  # one sentence longer than the window: its first words
        return " ".join(" ".join(sentences[lo:hi + 1]).split()[:int(words * 1.5)])
    if not extras:  # the best sentence and its neighbours only
        return " ".join(sentences[lo:hi + 1])
    chosen = set(range(lo, hi + 1))
    if keep is not None and len(sentences[keep].split()) <= words:
        chosen.add(keep)
    room = words // 2
    close = [j for j in sorted(range(len(sentences)), key=lambda j: -scores[j])
             if scores[j] >= scores[best] - SECOND_MARGIN]
    for j in ([also] if also is not None else []) + close:
        length = len(sentences[j].split())
        if j not in chosen and length <= room:
            chosen.add(j)
            room -= length
    parts: list[str] = []
    for j in sorted(chosen):
        if parts and j - 1 not in chosen:
            parts.append("…")
        parts.append(sentences[j])
    return " ".join(parts)


def select(library: "Library", question: str, hits: list["Hit"], k: int, words: int = 70, spread: bool = False,
           encoder: "SentenceEncoder | None" = None) -> tuple[list["Hit"], list[str]]:
    """The `k` hits best fit to answer `question`, best first, each with its evidence window.

    An answer reads one paper: another paper's passage is kept only when it fits nearly as well as the
    best. With `spread` (research, which gathers findings across the library), every paper whose best
    passage fits within SPREAD of the best, or that the question names, gives its best passage first,
    papers in order of fit; the rest of the k follow by fit."""
    if not hits:
        return [], []
    chunks = library.store.chunks_by_ids([h.chunk_id for h in hits])
    citations_wanted = about_citations(question)
    pool = [h for h in hits if h.chunk_id in chunks
            and (citations_wanted or not is_boilerplate(h.section, chunks[h.chunk_id].text))]
    if not pool:
        return [], []
    per_hit = [evidence_sentences(chunks[h.chunk_id].text) or [" ".join(chunks[h.chunk_id].text.split())]
               for h in pool]
    flat = [s for sentences in per_hit for s in sentences]
    encoder = encoder or library.embedder
    qvec = encoder.encode_query(question)
    vectors = encoder.encode(flat)
    sections, _ = _role(question)
    named = named_papers(question, pool)
    weights = word_weights(question, flat)
    intent = intent_vector(question, encoder)
    top = max(h.score for h in pool) or 1.0
    ranked: list[tuple[float, int, str]] = []
    at = 0
    for i, (hit, sentences) in enumerate(zip(pool, per_hit)):
        scores, typed = _sentence_scores(question, qvec, sentences, vectors[at:at + len(sentences)], weights,
                                         intent)
        at += len(sentences)
        fit = float(scores.max()) + 0.1 * hit.score / top
        if sections and any(name in hit.section.lower() for name in sections):
            fit += ROLE_BONUS
        if named and hit.paper_id in named:
            fit += NAMED_BONUS
        if metric_names.named_in(question, chunks[hit.chunk_id].text):  # a table of the metric asked about
            fit += ROLE_BONUS
        ranked.append((fit, i, window(sentences, scores, words, typed)))
    ranked.sort(key=lambda r: -r[0])
    lead_fit, lead, _ = ranked[0]
    if spread:
        chosen = _spread(ranked, pool, lead_fit, named, k)
        return [pool[i] for _, i, _ in chosen], [text for _, _, text in chosen]
    # another paper's passage must fit nearly as well as the best one to be read
    ranked = [r for r in ranked if pool[r[1]].paper_id == pool[lead].paper_id or r[0] >= lead_fit - OTHER_PAPER]
    chosen = ranked[:k]
    return [pool[i] for _, i, _ in chosen], [text for _, _, text in chosen]


@dataclass
class Scored:
    """A passage's sentences, each one's fit to the question, and the best of those stating the kind of fact
    asked for (None when none does)."""

    sentences: list[str]
    scores: np.ndarray
    typed: int | None
    kept: int | None = None  # a sentence the window shows besides its best one's (the writer's pick, when judged)


def scored_passages(library: "Library", question: str, texts: Sequence[str],
                    encoder: "SentenceEncoder | None" = None) -> list[Scored]:
    """Each passage's sentences scored for `question` (`_sentence_scores`), the question's words weighted by
    their rarity over all the passages' sentences; a passage with no sentence is one sentence of its words."""
    per_hit = [evidence_sentences(t) or [" ".join(t.split())] for t in texts]
    flat = [s for sentences in per_hit for s in sentences]
    if not any(flat):
        return [Scored(sentences, np.zeros(len(sentences)), None) for sentences in per_hit]
    encoder = encoder or library.embedder
    qvec = encoder.encode_query(question)
    vectors = encoder.encode(flat)
    weights = word_weights(question, flat)
    intent = intent_vector(question, encoder)
    out, at = [], 0
    for sentences in per_hit:
        scores, typed = _sentence_scores(question, qvec, sentences, vectors[at:at + len(sentences)], weights,
                                         intent)
        at += len(sentences)
        out.append(Scored(sentences, scores, typed))
    return out


def windows(library: "Library", question: str, hits: Sequence["Hit"], texts: Sequence[str], words: int,
            extras: bool = True, encoder: "SentenceEncoder | None" = None, distinct: bool = False) -> list[str]:
    """Each passage's evidence window for `question`, in the given order (no passage left out); without `extras`,
    only the best sentence and its neighbours (no second sentence after a gap).

    With `distinct`, a sentence an earlier window already shows is left out of a later passage (neighbouring
    chunks overlap, and one page is often found twice), so that window's room goes to sentences not yet
    read; a passage with nothing new gets an empty window, for the caller to leave out."""
    if not any(t.split() for t in texts):
        return ["" for _ in texts]
    return cut(scored_passages(library, question, texts, encoder), words, extras, distinct)


def cut(scored: Sequence[Scored], words: int, extras: bool = True, distinct: bool = False) -> list[str]:
    """Each scored passage's window (`window`), in order; with `distinct`, as `windows` says."""
    out = []
    shown = " "  # the windows so far, as plain words between spaces
    for passage in scored:
        sentences, scores, typed, kept = passage.sentences, passage.scores, passage.typed, passage.kept
        if distinct:
            fresh = [i for i, s in enumerate(sentences) if f" {plain_words(s)} " not in shown]
            if not fresh:
                out.append("")
                continue
            sentences, scores = [sentences[i] for i in fresh], scores[fresh]
            typed = fresh.index(typed) if typed in fresh else None
            kept = fresh.index(kept) if kept in fresh else None
        text = window(sentences, scores, words, typed, extras, kept)
        shown += plain_words(text) + " "
        out.append(text)
    return out


def plain_words(text: str) -> str:
    """The text's words, lower case, one space apart: the same sentence cut from two chunks compares equal."""
    return " ".join(_PLAIN.findall(text.lower()))


PASSAGE_RANK = 0.02  # in `reading`, a later passage's sentence must fit this much better per rank to come first


def reading(library: "Library", question: str, hits: Sequence["Hit"], texts: Sequence[str], words: int,
            encoder: "SentenceEncoder | None" = None) -> list[str]:
    """What the writer reads of each passage when it picks the answer's sentences: the best-fitting sentences
    over all the passages together (the earlier passages slightly preferred) until `words` are taken, each
    passage's in its own order with "…" for a gap. A fixed window per passage cuts out the sentence that
    states the fact as often as not; one shared budget goes where the fitting sentences are."""
    per_hit = [evidence_sentences(t) or [" ".join(t.split())] for t in texts]
    flat = [s for sentences in per_hit for s in sentences]
    if not flat:
        return ["" for _ in texts]
    encoder = encoder or library.embedder
    qvec = encoder.encode_query(question)
    vectors = encoder.encode(flat)
    weights = word_weights(question, flat)
    scores, _ = _sentence_scores(question, qvec, flat, vectors, weights, intent_vector(question, encoder))
    owner = np.array([i for i, sentences in enumerate(per_hit) for _ in sentences])
    chosen: set[int] = set()
    size = 0
    for j in np.argsort(-(scores - PASSAGE_RANK * owner), kind="stable"):
        length = len(flat[j].split())
        if size + length <= words:
            chosen.add(int(j))
            size += length
    out, at = [], 0
    for sentences in per_hit:
        parts: list[str] = []
        for k in range(len(sentences)):
            if at + k in chosen:
                if parts and at + k - 1 not in chosen:
                    parts.append("…")
                parts.append(sentences[k])
        out.append(" ".join(parts))
        at += len(sentences)
    return out


def role_candidates(library: "Library", question: str, hits: Sequence["Hit"], papers: int = 2) -> list["Hit"]:
    """Chunks of the sections a question of this kind wants ("what problem": abstract, introduction), from
    the papers of the first `papers` hits, that search did not propose; scored 0 (re-ranking judges them)."""
    from paperdesk.core.library.library import Hit

    sections, _ = _role(question)
    if not sections:
        return []
    have = {h.chunk_id for h in hits}
    out: list[Hit] = []
    for paper_id in list(dict.fromkeys(h.paper_id for h in hits))[:papers]:
        title = next(h.title for h in hits if h.paper_id == paper_id)
        for chunk in library.store.chunks_of(paper_id):
            if chunk.id not in have and any(name in chunk.section.lower() for name in sections):
                out.append(Hit(paper_id, title, chunk.id, chunk.page_start, chunk.page_end, chunk.section,
                               " ".join(chunk.text.split()[:40]), 0.0, None, None))
    return out


def _spread(ranked: list[tuple[float, int, str]], pool: Sequence["Hit"], lead_fit: float, named: set[str],
            k: int) -> list[tuple[float, int, str]]:
    """Each fitting paper's best passage first (papers by fit), then the rest by fit: k in all."""
    firsts: dict[str, tuple[float, int, str]] = {}
    for row in ranked:
        paper = pool[row[1]].paper_id
        if paper not in firsts and (row[0] >= lead_fit - SPREAD or paper in named):
            firsts[paper] = row
    lead = list(firsts.values())[:k]
    taken = {row[1] for row in lead}
    return lead + [row for row in ranked if row[1] not in taken][: k - len(lead)]
