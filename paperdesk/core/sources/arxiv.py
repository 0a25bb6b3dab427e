"""arXiv: search the export API, fetch one paper's metadata, download its PDF.

Built on the `arxiv` package for URL building (`arxiv.Client._format_url`) and
feed parsing (`arxiv._feed.parse`). The HTTP side is our own because the
package's client retries at once without backoff and has no timeout: here every
request waits its turn (`delay_seconds` apart, arXiv asks for 3 s), 429/5xx are
retried with exponential backoff (honouring Retry-After, capped), and every
failure becomes a paperdesk error whose message says what to do.
"""

from __future__ import annotations

import logging
import os
import re
import secrets
import threading
import time
from dataclasses import dataclass, field
from datetime import datetime
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path
from typing import Callable
from urllib.parse import urlsplit

import arxiv
import requests
import urllib3
from arxiv import _feed
from lxml import etree

from paperdesk.core.cancel import CancelToken
from paperdesk.core.errors import (
    ArxivUnreachableError,
    CancelledError,
    InvalidIdError,
    NetworkError,
    NotFoundError,
    PaperdeskError,
)
from paperdesk.core.db.diskspace import disk_full, is_disk_full
from paperdesk.core.ids import parse_arxiv_id
from paperdesk.core.text.redact import redact_url

DEFAULT_API_URL = "https://export.arxiv.org/api/query"
_ATOM_FEED = "{http://www.w3.org/2005/Atom}feed"
_ATOM = {"a": "http://www.w3.org/2005/Atom"}
_RETRY_STATUSES = {429, 500, 502, 503, 504}
_CHUNK = 64 * 1024
# A query that already uses arXiv syntax (field prefixes, boolean operators) is sent as typed.
_QUERY_SYNTAX = re.compile(r"\b(?:ti|au|abs|co|jr|cat|rn|id|all):|\b(?:AND|OR|ANDNOT)\b")

try:
    _PAPERDESK_VERSION = version("paperdesk")
except PackageNotFoundError:  # running from a source tree that was never installed
    _PAPERDESK_VERSION = "0"


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


def _build_query(text: str) -> str:
    """Plain words become `all:w1 AND all:w2`; text using arXiv syntax passes through."""
    if _QUERY_SYNTAX.search(text):
        return text
    words = re.findall(r"[^\s\"():]+", text)
    return " AND ".join(f"all:{w}" for w in words)


class ArxivClient:
    """A polite arXiv client: spaced requests, backoff on 429/5xx, timeouts, clear errors.

    `backoff_base` (seconds, doubled per retry) and `max_retry_wait` (cap on any
    single wait, Retry-After included) are plain attributes so tests can shrink them.
    """

    def __init__(
        self,
        api_url: str = DEFAULT_API_URL,
        delay_seconds: float = 3.0,
        num_retries: int = 3,
        timeout: float = 30.0,
        max_pdf_bytes: int = 200_000_000,
        download_deadline: float = 600.0,
    ) -> None:
        self.api_url = api_url
        self.max_pdf_bytes = max_pdf_bytes
        self.download_deadline = download_deadline
        # Called with (seconds left, why) once a second while a retry waits; the CLI shows a countdown.
        self.on_wait: Callable[[float, str], None] | None = None
        self.delay_seconds = delay_seconds
        self.num_retries = num_retries
        self.timeout = timeout
        self.backoff_base = max(delay_seconds, 1.0)
        self.max_retry_wait = 60.0
        # Only used for URL building; its own fetch loop (no backoff, no timeout) is never called.
        self._formatter = arxiv.Client(page_size=100, delay_seconds=delay_seconds, num_retries=0)
        # The URL is a str.format template: braces in a configured URL must stay literal.
        self._formatter.query_url_format = api_url.replace("{", "{{").replace("}", "}}") + "?{}"
        self._session = requests.Session()
        self._session.headers["User-Agent"] = f"paperdesk/{_PAPERDESK_VERSION} (arxiv.py/{arxiv.__version__})"
        self._lock = threading.Lock()  # one request at a time, so the spacing holds across threads
        self._next_allowed = 0.0  # time.monotonic() before which no request may start

    @classmethod
    def from_settings(cls, settings) -> "ArxivClient":
        """A client configured from the arxiv.* keys of a Settings."""
        return cls(
            api_url=settings["arxiv.api_url"],
            delay_seconds=settings["arxiv.delay_seconds"],
            num_retries=settings["arxiv.num_retries"],
            timeout=settings["arxiv.timeout"],
            max_pdf_bytes=int(settings["arxiv.max_pdf_mb"] * 1_000_000),
            download_deadline=settings["arxiv.download_deadline"],
        )

    # -- public ----------------------------------------------------------
    def find(self, query: str, max_results: int = 20, cancel: CancelToken | None = None) -> list[ArxivPaper]:
        """Search arXiv; returns up to `max_results` papers in arXiv's relevance order."""
        text = query.strip()
        if not text:
            raise PaperdeskError("empty query: type some words to search arXiv, e.g. 'citation reading tool'")
        if max_results <= 0:
            return []
        search = arxiv.Search(query=_build_query(text), max_results=max_results)
        url = self._formatter._format_url(search, 0, max_results)
        try:
            feed = self._get_feed(url, cancel, what=f"search {text!r}")
        except _ApiRejected as exc:
            raise PaperdeskError(f"arXiv rejected the search {text!r}: {exc}; check the query syntax") from None
        papers = []
        for result in feed.results[:max_results]:
            try:
                papers.append(ArxivPaper.from_result(result))
            except InvalidIdError:
                continue  # an entry we cannot identify is useless to the library
        return papers

    def fetch(self, id_text: str, cancel: CancelToken | None = None) -> ArxivPaper:
        """Metadata of one paper by id (bare, versioned, `arXiv:` prefixed or an arxiv.org URL)."""
        aid = parse_arxiv_id(id_text)  # InvalidIdError before any network traffic
        search = arxiv.Search(id_list=[str(aid)], max_results=1)
        try:
            feed = self._get_feed(self._formatter._format_url(search, 0, 1), cancel, what=f"paper {aid}")
        except _ApiRejected as exc:
            raise NotFoundError(f"arXiv has no paper {aid} ({exc}); check the id") from None
        for result in feed.results:
            try:
                paper = ArxivPaper.from_result(result)
            except InvalidIdError:
                continue
            if paper.arxiv_id == aid.base and aid.version in (None, paper.version):
                return paper
        raise NotFoundError(f"arXiv has no paper {aid}; check the id")

    def download_pdf(
        self,
        paper: ArxivPaper,
        dest: Path,
        progress: Callable[[int, int | None], None] | None = None,
        cancel: CancelToken | None = None,
    ) -> Path:
        """Stream the paper's PDF to `dest` atomically; `dest` is untouched on any failure.

        `progress(bytes_done, total_or_None)` is called as chunks arrive. The
        caller builds `dest` (use ids.path_inside so no id can escape the data dir).
        """
        url = paper.pdf_url or paper.abs_url.replace("/abs/", "/pdf/", 1)
        if "/pdf/" not in url:
            raise NotFoundError(f"no PDF link for {paper.short_id}; open {paper.abs_url or 'its arXiv page'}")
        if urlsplit(url).scheme not in ("http", "https"):
            raise NotFoundError(
                f"the PDF link arXiv gave for {paper.short_id} is not an http(s) URL ({redact_url(url)}); "
                f"download it by hand and add the file"
            )
        dest = Path(dest)
        dest.parent.mkdir(parents=True, exist_ok=True)
        what = f"download of {paper.short_id}"
        resp = self._request(url, cancel, what=what, stream=True)
        if resp.status_code == 404:
            resp.close()
            raise NotFoundError(f"arXiv has no PDF for {paper.short_id} (HTTP 404); check the id")
        if resp.status_code != 200:
            resp.close()
            raise NetworkError(f"{what} failed: HTTP {resp.status_code}; try again later")
        total = _content_length(resp)
        if total is not None and total > self.max_pdf_bytes:
            resp.close()
            raise NetworkError(_too_big(what, total, self.max_pdf_bytes))
        # Same directory as dest so os.replace is an atomic rename; mode 0o666 lets the umask decide.
        tmp = dest.parent / f".{dest.name}.{secrets.token_hex(6)}.part"
        created = False
        try:
            with resp:
                fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_BINARY", 0), 0o666)
                created = True
                with os.fdopen(fd, "wb") as out:
                    self._stream_body(resp, out, total, progress, cancel, what,
                                      self.max_pdf_bytes, time.monotonic() + self.download_deadline)
                    out.flush()
                    os.fsync(out.fileno())  # the bytes are on disk before the name points at them
            os.replace(tmp, dest)
        except BaseException as exc:
            if created:
                tmp.unlink(missing_ok=True)
            if is_disk_full(exc):
                raise disk_full(total or self.max_pdf_bytes, dest.parent, f"download {paper.short_id}") from None
            raise
        _fsync_dir(dest.parent)
        return dest

    # -- HTTP ------------------------------------------------------------
    @staticmethod
    def _stream_body(
        resp: requests.Response,
        out,
        total: int | None,
        progress: Callable[[int, int | None], None] | None,
        cancel: CancelToken | None,
        what: str,
        max_bytes: int | None = None,
        deadline: float | None = None,
    ) -> int:
        """Copy the body to `out`, checking the PDF magic, cancel, size cap, deadline and completeness."""
        done = 0
        head = b""
        if progress:
            progress(0, total)
        try:
            # read1 returns what one recv brought, so a server trickling bytes cannot hold a read
            # (and so the deadline) past one socket timeout.
            while chunk := resp.raw.read1(_CHUNK, decode_content=True):
                if cancel is not None and cancel.cancelled:
                    raise CancelledError(f"{what} cancelled")
                if len(head) < 4:
                    head += chunk[: 4 - len(head)]
                    if len(head) == 4 and head != b"%PDF":
                        kind = resp.headers.get("Content-Type", "unknown type")
                        raise NotFoundError(f"{what}: arXiv sent {kind}, not a PDF; try again later or open the abs page")
                done += len(chunk)
                if max_bytes is not None and done > max_bytes:
                    raise NetworkError(_too_big(what, done, max_bytes))
                out.write(chunk)
                if progress:
                    progress(done, total)
                if deadline is not None and time.monotonic() > deadline:
                    raise NetworkError(
                        f"{what} took too long ({done // 1000} kB arrived before the deadline); the server is too "
                        "slow: try again later or raise arxiv.download_deadline"
                    )
        except (requests.exceptions.RequestException, urllib3.exceptions.HTTPError, ConnectionError,
                TimeoutError) as exc:
            raise NetworkError(f"{what} interrupted ({_short(exc)}); try again") from None
        if not head.startswith(b"%PDF"):
            raise NotFoundError(f"{what}: arXiv sent an empty or non-PDF body; try again later")
        if total is not None and done != total:
            raise NetworkError(f"{what} interrupted after {done} of {total} bytes; try again")
        return done

    def _get_feed(self, url: str, cancel: CancelToken | None, what: str) -> _feed.ParsedFeed:
        resp = self._request(url, cancel, what=f"arXiv {what}")
        content = resp.content
        if resp.status_code != 200:
            detail = _error_summary(content)
            if detail:
                raise _ApiRejected(detail)
            raise NetworkError(f"arXiv {what} failed: HTTP {resp.status_code}; check the query or arxiv.api_url")
        if not _is_atom_feed(content):
            raise NetworkError(f"arXiv {what}: the API sent a malformed feed; try again later or check arxiv.api_url")
        detail = _error_summary(content)
        if detail:
            raise _ApiRejected(detail)
        try:
            feed = _feed.parse(content)
        except ValueError:  # the library raises on one entry's bad date and loses the whole page
            feed = _feed.parse(_drop_bad_dates(content))
        if feed.malformed:
            raise NetworkError(f"arXiv {what}: the API sent a malformed feed ({feed.error}); try again later")
        return feed

    def _request(self, url: str, cancel: CancelToken | None, what: str, stream: bool = False) -> requests.Response:
        """GET with spacing and retries; returns the first non-retryable response."""
        with self._lock:
            attempt = 0
            while True:
                self._sleep_until(self._next_allowed, cancel)
                try:
                    resp = self._session.get(url, timeout=self.timeout, stream=stream)
                except requests.exceptions.RequestException as exc:
                    self._next_allowed = time.monotonic() + self.delay_seconds
                    raise _unreachable(url, exc, self.timeout) from None
                self._next_allowed = time.monotonic() + self.delay_seconds
                if resp.status_code not in _RETRY_STATUSES:
                    return resp
                resp.close()
                if attempt >= self.num_retries:
                    raise NetworkError(
                        f"{what} failed: HTTP {resp.status_code} ({_status_hint(resp.status_code)}) after "
                        f"{attempt + 1} tries; wait a minute and try again, or raise arxiv.delay_seconds"
                    )
                wait = min(self.max_retry_wait, max(self.backoff_base * 2**attempt, _retry_after(resp)))
                self._next_allowed = max(self._next_allowed, time.monotonic() + wait)
                self._announce_wait(resp.status_code, cancel)
                attempt += 1

    def _announce_wait(self, status: int, cancel: CancelToken | None) -> None:
        """Count a long retry wait down through `on_wait`, second by second, instead of waiting silently."""
        if self.on_wait is None:
            return
        why = f"arXiv answered HTTP {status} ({_status_hint(status)})"
        while (left := self._next_allowed - time.monotonic()) > 0.5:
            self.on_wait(left, why)
            self._sleep_until(time.monotonic() + min(1.0, left - 0.5), cancel)
        self.on_wait(0.0, why)

    @staticmethod
    def _sleep_until(deadline: float, cancel: CancelToken | None) -> None:
        # Short naps so a cancel is noticed while waiting out a long backoff.
        while (left := deadline - time.monotonic()) > 0:
            if cancel is not None:
                cancel.raise_if_cancelled()
            time.sleep(min(left, 0.05))
        if cancel is not None:
            cancel.raise_if_cancelled()


class _ApiRejected(PaperdeskError):
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


def _drop_bad_dates(content: bytes) -> bytes:
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


def _is_atom_feed(content: bytes) -> bool:
    try:
        root = etree.fromstring(content, etree.XMLParser(resolve_entities=False, no_network=True))
    except etree.XMLSyntaxError:
        return False
    return root is not None and root.tag == _ATOM_FEED


def _error_summary(content: bytes) -> str | None:
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


def _retry_after(resp: requests.Response) -> float:
    value = resp.headers.get("Retry-After", "")
    try:
        return max(0.0, float(value))
    except ValueError:
        return 0.0  # an HTTP-date or garbage: fall back to our own backoff


def _status_hint(status: int) -> str:
    return "rate limited" if status == 429 else "server unavailable" if status in (502, 503, 504) else "server error"


def _too_big(what: str, size: int, limit: int) -> str:
    return (f"{what} stopped: the PDF is over {limit / 1e6:g} MB ({size / 1e6:.1f} MB so far); "
            "raise arxiv.max_pdf_mb if it is really that large")


def _content_length(resp: requests.Response) -> int | None:
    try:
        return int(resp.headers["Content-Length"])
    except (KeyError, ValueError):
        return None


def _short(exc: BaseException) -> str:
    text = str(exc)
    for needle, short in (("IncompleteRead", "connection closed early"), ("reset", "connection reset"),
                          ("timed out", "timed out")):
        if needle in text:
            return short
    return type(exc).__name__


def _unreachable(url: str, exc: requests.exceptions.RequestException, timeout: float) -> NetworkError:
    parts = urlsplit(url)
    host = parts.hostname or url
    text = str(exc)
    if isinstance(exc, (requests.exceptions.InvalidURL, requests.exceptions.MissingSchema,
                        requests.exceptions.InvalidSchema)):
        return NetworkError(
            f"cannot request {redact_url(url.split('?')[0])!r}: not a valid http(s) URL; check arxiv.api_url"
        )
    if isinstance(exc, requests.exceptions.Timeout):
        detail = f"no answer from {host} within {timeout:g}s"
    elif "Name or service not known" in text or "NameResolution" in text or "getaddrinfo" in text:
        detail = f"cannot resolve {host}"
    elif "refused" in text.lower():
        detail = f"connection to {host}:{parts.port or ('443' if parts.scheme == 'https' else '80')} refused"
    else:
        detail = f"cannot connect to {host} ({type(exc).__name__})"
    return ArxivUnreachableError(f"arXiv unreachable (offline?): {detail}; check the connection or set arxiv.api_url")


def _fsync_dir(path: Path) -> None:
    # Makes the rename durable; not every platform can open a directory.
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)
