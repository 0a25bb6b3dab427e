"""arXiv's margin stamp on a paper's first page: which line it is, and the arXiv id it names.

arXiv prints its stamp up the left margin of page 1 of every PDF it serves:
"arXiv:2302.07302v1 [cs.HC] 14 Feb 2023". Papers with old-style ids carry
"arXiv:hep-th/9901001v2 12 Jan 1999", with the category in brackets when it is
not the archive itself ("arXiv:math/0211159v1 [math.DG] 11 Nov 2002"). A stamp
is a whole line of its own: an id cited in running text or a reference list
("see arXiv:2302.07302") is never one.
"""

from __future__ import annotations

import re

from paperdesk.core.errors import InvalidIdError
from paperdesk.core.ids import parse_arxiv_id

_NEW = r"\d{4}\.\d{4,5}"
_OLD = r"[a-z]+(?:-[a-z]+)*(?:\.[A-Z]{2})?/\d{7}"
_LINE = re.compile(
    rf"^arXiv:(?P<id>(?:{_NEW}|{_OLD})(?:v[1-9]\d{{0,3}})?)\s+(?:\[[\w.\-]+\]\s+)?\d{{1,2}}\s+[A-Za-z]{{3}}\s+\d{{4}}$",
    re.ASCII,
)


def is_stamp(line: str) -> bool:
    """Whether a page's line (whitespace collapsed) is arXiv's stamp."""
    return line[:6] == "arXiv:" and _LINE.match(line) is not None


def stamp_id(stamp: str) -> str:
    """The arXiv id a stamp names, with the version it shows ("2302.07302v1", "hep-th/9901001v2"); "" for
    anything that is not a stamp."""
    match = _LINE.match(" ".join((stamp or "").split()))
    if match is None:
        return ""
    try:
        return str(parse_arxiv_id(match.group("id")))
    except InvalidIdError:
        return ""
