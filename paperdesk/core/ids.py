"""Paper ids: parsing arXiv ids from user input, and safe file names.

Nothing derived from outside input (an id, a title, a URL) is used as a path
until it has passed through `safe_filename` and `path_inside`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from paperdesk.core.errors import InvalidIdError

_NEW = r"(?P<new>\d{4}\.\d{4,5})"
_OLD = r"(?P<old>[a-z]+(?:-[a-z]+)*(?:\.[A-Z]{2})?/\d{7})"
_VERSION = r"(?:v(?P<version>[1-9]\d{0,3}))?"
# re.ASCII: \d would also match full-width and other Unicode digits, which no arXiv id has.
_ARXIV_RE = re.compile(rf"^(?:{_NEW}|{_OLD}){_VERSION}$", re.ASCII)
_URL_RE = re.compile(r"^https?://(?:www\.|export\.)?arxiv\.org/(?:abs|pdf)/(?P<rest>.+?)(?:\.pdf)?/?$", re.I | re.ASCII)
_LOCAL_RE = re.compile(r"^local-[0-9a-f]{12}$")


@dataclass(frozen=True)
class ArxivId:
    base: str
    version: int | None = None

    def __str__(self) -> str:
        return f"{self.base}v{self.version}" if self.version else self.base


def parse_arxiv_id(text: str) -> ArxivId:
    """Accept `2302.07302`, `2302.07302v1`, `arXiv:2302.07302`, an abs/pdf URL, or old-style ids."""
    raw = text.strip()
    match = _URL_RE.match(raw)
    if match:
        raw = match.group("rest")
    if raw[:6].lower() == "arxiv:":
        raw = raw[6:].strip()
    m = _ARXIV_RE.match(raw)
    if not m:
        raise InvalidIdError(
            f"not an arXiv id: {text!r}; use a form like 2302.07302, 2302.07302v1 or arXiv:2302.07302"
        )
    base = m.group("new") or m.group("old")
    version = int(m.group("version")) if m.group("version") else None
    return ArxivId(base, version)


def looks_like_arxiv(text: str) -> bool:
    try:
        parse_arxiv_id(text)
    except InvalidIdError:
        return False
    return True


def is_local_id(text: str) -> bool:
    return bool(_LOCAL_RE.match(text.strip()))


def safe_filename(text: str, max_len: int = 80) -> str:
    """A name made only of [A-Za-z0-9._-], never '.', '..' or empty."""
    name = re.sub(r"[^A-Za-z0-9._-]+", "_", text).strip("._") or "paper"
    return name[:max_len]


def path_inside(root: Path, name: str) -> Path:
    """`root/safe_filename(name)`, checked to stay inside root."""
    candidate = (root / safe_filename(name)).resolve()
    if root.resolve() not in candidate.parents:
        raise InvalidIdError(f"refusing a path outside the data directory: {name!r}")
    return candidate
