"""How a message refers to a citation of the open draft: "[2]", "source 3", "the second reference", "that quote".

The dispatcher's router reads these to route a citation question; the follow-up handler reads them to
ask the writer about the cited passage as its [1]. Both sit above this module, which imports nothing of theirs.
"""

from __future__ import annotations

import re

ORDINALS = {
    "first": 1, "second": 2, "third": 3, "fourth": 4, "fifth": 5, "sixth": 6, "seventh": 7, "eighth": 8,
    "ninth": 9, "tenth": 10, "1st": 1, "2nd": 2, "3rd": 3, "4th": 4, "5th": 5, "6th": 6, "7th": 7, "8th": 8,
    "9th": 9, "10th": 10, "top": 1,
}

_ORD = "|".join(sorted(ORDINALS, key=len, reverse=True))
CITE_NUM = re.compile(r"\[(?P<a>\d{1,3})\]|\b(?:citation|source|reference|ref\.?)\s*#?\s*\[?(?P<b>\d{1,3})\]?", re.I)
CITE_ORD = re.compile(rf"\b(?:the\s+)?(?P<ord>{_ORD}|last)\s+(?:citation|source|reference|cited (?:paper|source))\b",
                      re.I)
CITE_DEICTIC = re.compile(r"\b(?:that|this|the)\s+(?:citation|source|reference|cited passage|quote)\b", re.I)
CITE_PATTERNS = (CITE_NUM, CITE_ORD, CITE_DEICTIC)  # in the order the router tries them
