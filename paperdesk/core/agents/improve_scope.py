"""Which summary sections a feedback is about, and why an `improve` changed nothing.

"improve name the datasets in the table" is about the method and results,
not the problem or the limitations: those sections stay as they are (they
passed the checks once already), so a feedback about one thing cannot turn
untouched sections into quotes. A feedback that names no part of a summary
is about all of it.
"""

from __future__ import annotations

import re

# Words that point a feedback at one section; a word may point at two ("datasets": what was used, what it showed).
SECTION_WORDS = {
    "problem": "problem problems motivation motivate question questions goal goals aim why introduction gap need "
               "challenge challenges task tasks",
    "method": "method methods approach approaches model models system systems design architecture pipeline "
              "dataset datasets data corpus corpora annotation annotators procedure technique algorithm how built "
              "tool toolkit setup participants study",
    "results": "result results finding findings evaluation evaluate accuracy performance number numbers figure "
               "figures table tables experiment experiments score scores factor speed faster improvement metric "
               "metrics outcome outcomes dataset datasets baseline baselines compare comparison effect",
    "limitations": "limitation limitations weakness weaknesses drawback drawbacks caveat caveats future shortcoming "
                   "shortcomings risk risks fail fails failure open",
}
_INDEX = {w: key for key, words in SECTION_WORDS.items() for w in words.split()}


def sections_for(feedback: str, keys: list[str]) -> list[str]:
    """The section keys (of `keys`, in order) the feedback is about; all of them when it names none."""
    words = re.findall(r"[a-z]+", feedback.lower())
    named = {key for key in keys if key in words}  # "improve the results: ..." names a section outright
    for word in words:
        for key, vocabulary in SECTION_WORDS.items():
            if word in vocabulary.split() and key in keys:
                named.add(key)
    return [k for k in keys if k in named] or list(keys)


def same_sections(new: dict[str, str], old: dict[str, str]) -> bool:
    """The same section bodies, whitespace aside: a revision that would say nothing new."""
    def flat(sections: dict[str, str]) -> dict[str, str]:
        return {heading: " ".join(body.split()) for heading, body in sections.items()}

    return flat(new) == flat(old)


def unchanged_reason(targets: list[str], failures: dict[str, list[str]], revision: int) -> str:
    """Why an improve left the summary as it was, and what to try."""
    why = "; ".join(f"{heading}: {reasons[-1]}" for heading, reasons in failures.items()) or \
        "the rewrite said the same as before"
    return (f"no new revision: the rewrite of {', '.join(targets)} did not hold up against the paper ({why}), "
            f"so the summary stays at revision {revision}; name the fact and where it is, "
            "e.g. improve results: give the accuracy from table 2")
