"""Filling a command's free-text argument from a message: the find query, the note, the feedback.

Rules only: strip the request phrasing ("could you look for new papers on")
and keep what the user wants searched, noted or changed.
"""

from __future__ import annotations

import re

_POLITE = re.compile(r"^(?:(?:ok(?:ay)?|so|now|then|hey|hi|also|and|well|please|pls|kindly)[,\s]+)*"
                     r"(?:(?:can|could|would|will) you(?: please)?|i(?:'d| would) like(?: you)? to|i want(?: you)? to|"
                     r"i need(?: you)? to|let's|lets|go ahead and|please)?\s*", re.I)
_TAIL = re.compile(r"[\s,]*(?:please|pls|for me|thanks|thank you|now|on arxiv|from arxiv|in arxiv)?[\s.!?]*$", re.I)
_FIND = re.compile(
    r"\b(?:papers?|articles?|work|preprints?|literature|publications?|research|studies|stuff|things)\b"
    r"(?:\s+(?:on\s+arxiv|from\s+arxiv|in\s+arxiv))?"
    r"\s+(?:on|about|regarding|concerning|covering|related to|dealing with|that deal with|that discuss|discussing|"
    r"for|in the area of|in)\s+(?P<q>.+)", re.I)
_FIND_VERB = re.compile(
    r"^(?:search|look|hunt|find|fetch|get|grab|dig|discover|show me|browse|check)\w*(?:\s+(?:up|out|around|me|us))?"
    r"(?:\s+(?:arxiv|online|the web))?\s+(?:for|on|about)\s+(?P<q>.+)", re.I)
_NOTE = re.compile(
    r"^(?:(?:add|make|write|put|take|leave|jot)\s+(?:down\s+)?(?:a\s+)?(?:note|notes|comment)\s*"
    r"(?:(?:to|in|into)\s+(?:my|the)\s+notes\s*)?(?:saying|that|:|-)?\s*|"
    r"(?:note|notes|remember|jot down|write down|record)\s*(?:down\s+)?(?:that|:|-)?\s*|"
    r"(?:add|put|write)\s+(?:to|in|into)\s+(?:my|the)\s+notes\s*(?:that|:|-)?\s*)(?P<t>.+)$", re.I)


def clean(message: str) -> str:
    """The message without leading politeness and trailing filler."""
    text = _POLITE.sub("", message.strip(), count=1)
    return _TAIL.sub("", text).strip()


def find_query(message: str) -> str | None:
    """The arXiv query of a find request ("look for new papers on table extraction" -> "table extraction")."""
    text = clean(message)
    for rx in (_FIND, _FIND_VERB):
        m = rx.search(text)
        if m:
            q = _TAIL.sub("", m.group("q")).strip(" ,.:;")
            q = re.sub(r"^(?:the topic of|the subject of|the)\s+", "", q, flags=re.I)
            return q or None
    return None


def note_text(message: str) -> str | None:
    """The text to append to the notes ("add a note that figure 3 is reusable" -> "figure 3 is reusable")."""
    text = clean(message)
    m = _NOTE.match(text)
    if not m:
        return None
    t = m.group("t").strip(" :-")
    # "show my notes" / "open the notes" carry no text to append
    if re.fullmatch(r"(?:my|the)?\s*notes?", t, re.I):
        return None
    return t or None


def feedback(message: str) -> str:
    """The improve feedback: the user's instruction, minus politeness."""
    return clean(message).rstrip(".!") or message.strip()


_ASK_LEAD = re.compile(
    r"^(?:(?:search|look|check|query)\s+(?:in\s+|through\s+)?(?:my|the)\s+(?:library|collection|papers)\s+"
    r"(?:for|about|on)\s+|(?:write|make|prepare|produce|do|draft)\s+(?:me\s+)?(?:a|an)\s+(?:short\s+|detailed\s+|"
    r"full\s+)?(?:research\s+)?(?:report|write-?up)\s+(?:on|about|of)\s+)", re.I)


def question(message: str) -> str:
    """The question as it goes to sem-search/research (request phrasing dropped, wording kept)."""
    text = _POLITE.sub("", message.strip(), count=1).strip()
    text = _ASK_LEAD.sub("", text, count=1)
    return text.rstrip(" ?.!").strip() or message.strip()
