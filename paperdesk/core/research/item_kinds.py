"""Whether a name pulled from a passage can be the kind of thing the list asks for.

`extract_list` takes capitalised names and acronyms from sentences that mention the kind
("... on the SQuAD dataset"); a sentence about datasets also names the people who made them
("Koncel-Kedziorski et al. [21] built ..."). Each name is checked in its sentence:

- a person's name is no dataset, method or metric: "X et al.", "X and Y (2019)", "X (2019)",
  "X, 2019" by its sentence; nor, for a dataset or metric, a name shaped "Surname-Surname" (plain
  capitalised words joined by hyphens, none a prefix such as Multi- or Cross-) with no kind word
  right beside it (a model may be named so: Megatron-Turing);
- a dataset is named beside a dataset word ("the CNN/DM corpus", "Multi-News dataset", within
  a few words) or looks like a dataset's name: an acronym, inner capitals or digits (SQuAD,
  S2ORC, CORD-19); a metric likewise beside a metric word or shaped like one (ROUGE-L, F1).

- an ALL-CAPS word the passage also writes in lower case is a heading's word (RELATED WORK).

A name that fails is dropped, and the reason goes into the step's result for the trace.
"""

from __future__ import annotations

import re

from paperdesk.core.ingest.chunking import KNOWN_HEADINGS

NEAR_WORDS = 3  # a name this many words or fewer from a kind word is named as one

_KIND_WORDS = {
    "dataset": {"dataset", "datasets", "data", "corpus", "corpora", "benchmark", "benchmarks", "collection",
                "collections", "split", "splits", "set", "sets", "treebank", "archive"},
    "metric": {"metric", "metrics", "score", "scores", "measure", "measures", "measured", "accuracy", "precision",
               "recall", "f1", "agreement", "correlation", "error"},
    "method": {"method", "methods", "model", "models", "approach", "approaches", "baseline", "baselines", "system",
               "systems", "algorithm", "algorithms", "tool", "technique", "architecture", "encoder", "decoder"},
}
# Word-forming prefixes of hyphenated names that are not surnames (Multi-News, Cross-Lingual, Self-Instruct).
_PREFIXES = {"multi", "cross", "pre", "post", "non", "semi", "self", "open", "long", "short", "co", "meta", "sub",
             "super", "inter", "intra", "bi", "tri", "uni", "auto", "anti", "human", "web", "news", "wiki", "book",
             "few", "zero", "one", "two", "single", "real", "large", "small", "fine", "low", "high", "end", "top"}
_HEADING_WORDS = {w for name in KNOWN_HEADINGS for w in name.split()} | {
    "motivation", "composition", "collection", "process", "distribution", "maintenance", "uses", "system",
    "design", "study", "results", "findings", "overview", "preliminaries", "analysis", "related", "work"}
_SURNAMES = re.compile(r"^[A-Z][a-z]{2,}(?:-[A-Z][a-z]{2,})+$")
_NAME_LIKE = re.compile(r"[A-Z].*[A-Z]|\d|^[A-Z]{2,}")  # acronym, inner capitals or digits
_YEAR = r"(?:19|20)\d\d[a-z]?"


def _words(text: str) -> list[str]:
    return re.findall(r"[A-Za-z0-9][\w\-/^]*", text)


def _near_kind_word(name: str, sentence: str, kind: str, within: int = NEAR_WORDS) -> bool:
    words = _words(sentence)
    lows = [w.lower() for w in words]
    first = name.split()[0]
    spots = [i for i, w in enumerate(words) if w == first or w.startswith(first)]
    kind_at = [i for i, w in enumerate(lows) if w in _KIND_WORDS.get(kind, set())]
    return any(abs(i - j) <= within for i in spots for j in kind_at)


def cited_as_person(name: str, sentence: str) -> bool:
    """The sentence cites the name as an author: "X et al.", "X and Y (2019)", "X (2019)", "X, 2019"."""
    n = re.escape(name)
    return bool(re.search(rf"\b{n}\s+et\s+al\b|\b{n}\s+and\s+[A-Z][a-z]+(?:-[A-Z][a-z]+)?\s*[(\[,]\s*{_YEAR}"
                          rf"|\b{n}\s*[(\[]\s*{_YEAR}\b|\b{n},\s+{_YEAR}\b|[A-Z][a-z]+\s+and\s+{n}\s*[(\[,]\s*{_YEAR}",
                          sentence))


def person_shaped(name: str) -> bool:
    """'Koncel-Kedziorski': plain capitalised words joined by hyphens, none a word-forming prefix."""
    return bool(_SURNAMES.match(name)) and not any(p.lower() in _PREFIXES for p in name.split("-"))


def shouted(name: str, text: str) -> bool:
    """An ALL-CAPS word the passage also writes in lower case: a heading's word (RELATED WORK, MOTIVATION)."""
    if not (name.isalpha() and name.isupper() and len(name) >= 3):
        return False
    return name.lower() in _HEADING_WORDS or re.search(rf"(?<![\w-]){name.lower()}(?![\w-])", text) is not None


def misfit(name: str, sentence: str, kind: str, text: str = "") -> str:
    """Why `name` (found in `sentence` of the passage `text`) cannot be a `kind`; '' when it can."""
    if cited_as_person(name, sentence):
        return "a person's name (cited as an author)"
    if shouted(name, text or sentence):
        return "a heading's word in capitals, not a name"
    near = _near_kind_word(name, sentence, kind)
    if kind in ("dataset", "metric") and person_shaped(name) and not _near_kind_word(name, sentence, kind, within=2):
        return f"shaped like a person's name, and not named as a {kind}"
    if kind in ("dataset", "metric") and not near and not _NAME_LIKE.search(name):
        return f"not named as a {kind} and not shaped like one"
    return ""
