"""arXiv's answers read: one record (ArxivPaper), the search query built from plain words, and the Atom
feed checked (is it a feed, is it an error entry, entries with a date that does not parse dropped).

The `arxiv` package parses the feed itself; its warnings go to our log, not stderr.
"""

from __future__ import annotations

import logging
import re
from dataclasses import dataclass, field
from datetime import datetime

import arxiv
from lxml import etree

from paperdesk.core.errors import PaperdeskError
from paperdesk.core.ids import parse_arxiv_id

_ATOM_FEED = "{http://www.w3.org/2005/Atom}feed"
_ATOM = {"a": "http://www.w3.org/2005/Atom"}
# A query that already uses arXiv syntax (field prefixes, boolean operators) is sent as typed.
_QUERY_SYNTAX = re.compile(r"\b(?:ti|au|abs|co|jr|cat|rn|id|all):|\b(?:AND|OR|ANDNOT)\b")


def _collapse(text: str) -> str:
    return " ".join(text.split())


@dataclass
class ArxivPaper:
    """One arXiv record, as the export API describes it."""

    arxiv_id: str  # base id without version, e.g. "2302.07302" or "hep-th/9901001"
    version: int | None
    title: str  # whitespace collapsed
    authors: list[str] = field(default_factory=list)
    abstract: str = ""  # whitespace collapsed
    published: str = ""  # ISO 8601
    updated: str = ""
    categories: list[str] = field(default_factory=list)
    pdf_url: str | None = None  # the feed entry's pdf link
    abs_url: str = ""

    @property
    def short_id(self) -> str:
        """Base id plus version when known: "2302.07302v1"."""
        return f"{self.arxiv_id}v{self.version}" if self.version else self.arxiv_id

    @property
    def year(self) -> int | None:
        """Year of first publication, or None when the date is missing."""
        try:
            return int(self.published[:4])
        except ValueError:
            return None

    @classmethod
    def from_result(cls, result: arxiv.Result) -> "ArxivPaper":
        """Convert an `arxiv.Result`; raises InvalidIdError for an entry id that is not an arXiv id."""
        aid = parse_arxiv_id(result.get_short_id())
        abs_url = next((link.href for link in result.links if link.rel == "alternate"), result.entry_id)
        return cls(
            arxiv_id=aid.base,
            version=aid.version,
            title=_collapse(result.title),
            authors=[a.name for a in result.authors],
            abstract=_collapse(result.summary),
            published=result.published.isoformat(),
            updated=result.updated.isoformat(),
            categories=list(result.categories),
            pdf_url=result.pdf_url,
            abs_url=abs_url,
        )


def build_query(text: str) -> str:
    """Plain words become `all:w1 AND all:w2`; text using arXiv syntax passes through."""
    if _QUERY_SYNTAX.search(text):
        return text
    words = re.findall(r"[^\s\"():]+", text)
    return " AND ".join(f"all:{w}" for w in words)


class ApiRejected(PaperdeskError):
    """The API answered with an error entry (api/errors#...) instead of results."""


class _ToOurLog(logging.Handler):
    """The arxiv package warns on stderr ("Skipping entry without <id>"); that belongs in our log."""

    def emit(self, record: logging.LogRecord) -> None:
        _log.info("arxiv: %s", record.getMessage())


_log = logging.getLogger("paperdesk.arxiv")
_arxiv_log = logging.getLogger("arxiv")
if not any(isinstance(h, _ToOurLog) for h in _arxiv_log.handlers):
    _arxiv_log.addHandler(_ToOurLog())
_arxiv_log.propagate = False


def drop_bad_dates(content: bytes) -> bytes:
    """The feed without entries whose published/updated date does not parse (each one logged)."""
    root = etree.fromstring(content, etree.XMLParser(resolve_entities=False, no_network=True, recover=True))
    for entry in root.findall("a:entry", _ATOM):
        for tag in ("a:published", "a:updated"):
            text = (entry.findtext(tag, "", _ATOM) or "").strip().replace("Z", "+00:00")
            try:
                datetime.fromisoformat(text)
            except ValueError:
                _log.info("skipping arXiv entry %s: bad <%s> %r", entry.findtext("a:id", "?", _ATOM), tag[2:], text)
                root.remove(entry)
                break
    return etree.tostring(root)


def is_atom_feed(content: bytes) -> bool:
    try:
        root = etree.fromstring(content, etree.XMLParser(resolve_entities=False, no_network=True))
    except etree.XMLSyntaxError:
        return False
    return root is not None and root.tag == _ATOM_FEED


def error_summary(content: bytes) -> str | None:
    """The message of an arXiv error entry, if the body is one."""
    try:
        root = etree.fromstring(content, etree.XMLParser(resolve_entities=False, no_network=True, recover=True))
    except etree.XMLSyntaxError:
        return None
    if root is None:
        return None
    for entry in root.iterfind("a:entry", _ATOM):
        if "/api/errors" in (entry.findtext("a:id", "", _ATOM) or ""):
            return _collapse(entry.findtext("a:summary", "", _ATOM) or "") or "error"
    return None
