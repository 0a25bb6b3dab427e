"""Column names of result tables spelled out, so a question's words find the table.

Papers head their columns "R-1f1", "R-L", "B-4", "Acc.", "F1": a question asks for "ROUGE-1",
"BLEU-4" or "accuracy". A table chunk gets one extra line under its caption naming the metrics
its columns abbreviate ("Metrics: R-1f1 = ROUGE-1 F1; R-Lf1 = ROUGE-L F1."), which keyword
search, the vector side and the answer's evidence picker all read. The list is small and
explicit: only spellings that are unambiguous in a table header. A lone "P" or "R" is read as
precision or recall only beside an F1 column.
"""

from __future__ import annotations

import re
from typing import Sequence

_SUFFIX = {"f1": "F1", "f": "F1", "p": "precision", "r": "recall"}
_ROUGE = re.compile(r"^(?:R|RG|ROUGE)[-_]?(1|2|3|4|L|Lsum|SU4)(?:[-_ ]?(f1|f|p|r))?$", re.I)
_BLEU = re.compile(r"^(?:B|BL|BLEU)[-_]?([1-4])$", re.I)
_BARE_ROUGE = re.compile(r"^R(?:1|2|L)$", re.I)  # R1, R2, RL: ROUGE only beside another ROUGE column
_BERTSCORE = re.compile(r"^(?:BS[-_ ]?(f1|f|p|r)|(?:BERTS|BScore)(?:[-_ ]?(f1|f|p|r))?)$", re.I)
_FIXED = {
    "acc": "accuracy", "acc.": "accuracy", "f1": "F1 score", "f-1": "F1 score", "f1-score": "F1 score",
    "ma-f1": "macro F1 score", "mi-f1": "micro F1 score", "macro-f1": "macro F1 score", "micro-f1": "micro F1 score",
    "em": "exact match", "ppl": "perplexity", "mtr": "METEOR", "met.": "METEOR", "prec.": "precision",
    "rec.": "recall", "auc": "area under the curve (AUC)",
}
_F1_COLUMN = re.compile(r"(?:^|\s)F-?1(?:\s|$)", re.I)
_LABEL = "Metrics:"


def expand(name: str) -> str | None:
    """The metric a column-name token abbreviates ("R-1f1" -> "ROUGE-1 F1"), or None."""
    token = name.strip("()[],;:*†‡")
    if (m := _ROUGE.match(token)) and not token.upper().startswith("ROUGE"):
        n = m.group(1).upper() if m.group(1).lower() in ("l", "su4") else m.group(1)
        n = "Lsum" if m.group(1).lower() == "lsum" else n
        suffix = _SUFFIX.get((m.group(2) or "").lower())
        return f"ROUGE-{n}" + (f" {suffix}" if suffix else "")
    if (m := _BLEU.match(token)) and not token.upper().startswith("BLEU"):
        return f"BLEU-{m.group(1)}"
    if m := _BERTSCORE.match(token):
        suffix = _SUFFIX.get((m.group(1) or m.group(2) or "").lower())
        return "BERTScore" + (f" {suffix}" if suffix else "")
    return _FIXED.get(token.lower())


def metric_line(header: Sequence[str]) -> str:
    """'Metrics: R-1f1 = ROUGE-1 F1; Acc. = accuracy.' for the header's abbreviated metric names ('' if none)."""
    pairs: dict[str, str] = {}
    with_f1 = any(_F1_COLUMN.search(cell or "") for cell in header)
    tokens = [t.strip("()[],;:*†‡") for cell in header for t in (cell or "").split()]
    rouge = {t.upper() for t in tokens if (expand(t) or "").startswith("ROUGE") or _BARE_ROUGE.match(t)}
    for token in tokens:
        full = expand(token)
        if full and full.startswith("ROUGE") and _BARE_ROUGE.match(token) and len(rouge) < 2:
            full = None
        if full is None and with_f1 and token in ("P", "R"):
            full = "precision" if token == "P" else "recall"
        if full and token not in pairs:
            pairs[token] = full
    if not pairs:
        return ""
    return f"{_LABEL} " + "; ".join(f"{k} = {v}" for k, v in pairs.items()) + "."


def spelled_out(text: str) -> str:
    """The full metric names of a table chunk's metrics line ('ROUGE-1 F1 ROUGE-2 F1'), '' when it has none.

    Keyword search indexes them beside the chunk's section label: a short field, so a question naming the
    metric ranks the table with the prose that discusses it."""
    for line in text.splitlines()[:3]:
        if line.startswith(_LABEL):
            return " ".join(pair.split(" = ", 1)[-1] for pair in line[len(_LABEL):].rstrip(".").split(";"))
    return ""


def inline(text: str) -> str:
    """A table chunk's rows with each abbreviated column name followed by its metric ("R-1f1 (ROUGE-1 F1): 48.79"),
    the metrics line itself left out; other text as it is. What an answer's evidence reads, so a row's
    number stands next to the name the question uses."""
    lines = text.splitlines()
    at = next((i for i, line in enumerate(lines[:3]) if line.startswith(_LABEL)), None)
    if at is None:
        return text
    pairs = [pair.split(" = ", 1) for pair in lines[at][len(_LABEL):].rstrip(".").split(";")]
    names = {k.strip(): v.strip() for k, v in (p for p in pairs if len(p) == 2)}
    if not names:
        return text
    pattern = re.compile(r"(?<![\w.-])(" + "|".join(re.escape(k) for k in sorted(names, key=len, reverse=True))
                         + r")(?=:)")
    rows = [pattern.sub(lambda m: f"{m.group(1)} ({names[m.group(1)]})", line) for line in lines[at + 1:]]
    return "\n".join(lines[:at] + rows)


_NAME_WORD = re.compile(r"[a-z][a-z0-9-]*[a-z0-9]")
_GENERIC = frozenset({"score", "f1", "match", "under", "the", "curve", "area", "auc"})


def named_in(question: str, text: str) -> bool:
    """Whether the question names a metric ("ROUGE-1", "accuracy") that the table chunk's columns report."""
    names = {w for w in _NAME_WORD.findall(spelled_out(text).lower()) if w not in _GENERIC}
    return bool(names & set(_NAME_WORD.findall(question.lower())))
