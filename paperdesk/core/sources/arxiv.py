"""arXiv: search the export API, fetch one paper's metadata, download its PDF.

Built on the `arxiv` package for URL building (`arxiv.Client._format_url`) and
feed parsing (`arxiv._feed.parse`). The HTTP side is our own because the
package's client retries at once without backoff and has no timeout: here every
request waits its turn (`delay_seconds` apart, arXiv asks for 3 s), 429/5xx are
retried with exponential backoff (honouring Retry-After, capped), and every
failure becomes a paperdesk error whose message says what to do.

The record and the feed's checks are in arxiv_feed.py, the wording of HTTP failures in arxiv_http.py;
`ArxivPaper` is imported from here as before.
"""

from __future__ import annotations

import secrets
import threading
import time
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path
from typing import Callable
from urllib.parse import urlsplit

import arxiv
import requests
import urllib3
from arxiv import _feed

from paperdesk.core.atomic_file import atomic_write
from paperdesk.core.cancel import CancelToken
from paperdesk.core.errors import (
    CancelledError,
    InvalidIdError,
    NetworkError,
    NotFoundError,
    PaperdeskError,
)
from paperdesk.core.db.diskspace import disk_full, is_disk_full
from paperdesk.core.ids import parse_arxiv_id
from paperdesk.core.sources.arxiv_feed import (ApiRejected, ArxivPaper, build_query, drop_bad_dates, error_summary,
                                               is_atom_feed)
from paperdesk.core.sources.arxiv_http import (content_length, retry_after, short_reason, status_hint, too_big,
                                               unreachable)
from paperdesk.core.text.redact import redact_url

DEFAULT_API_URL = "https://export.arxiv.org/api/query"
_RETRY_STATUSES = {429, 500, 502, 503, 504}
_CHUNK = 64 * 1024

try:
    _PAPERDESK_VERSION = version("paperdesk")
except PackageNotFoundError:  # running from a source tree that was never installed
    _PAPERDESK_VERSION = "0"


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
        search = arxiv.Search(query=build_query(text), max_results=max_results)
        url = self._formatter._format_url(search, 0, max_results)
        try:
            feed = self._get_feed(url, cancel, what=f"search {text!r}")
        except ApiRejected as exc:
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
        except ApiRejected as exc:
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
        total = content_length(resp)
        if total is not None and total > self.max_pdf_bytes:
            resp.close()
            raise NetworkError(too_big(what, total, self.max_pdf_bytes))
        # Beside dest (the rename is atomic), named .part so a killed download is cleaned up at the next start.
        tmp = dest.parent / f".{dest.name}.{secrets.token_hex(6)}.part"
        try:
            with resp, atomic_write(dest, tmp) as out:
                self._stream_body(resp, out, total, progress, cancel, what,
                                  self.max_pdf_bytes, time.monotonic() + self.download_deadline)
        except BaseException as exc:
            if is_disk_full(exc):
                raise disk_full(total or self.max_pdf_bytes, dest.parent, f"download {paper.short_id}") from None
            raise
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
                    raise NetworkError(too_big(what, done, max_bytes))
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
            raise NetworkError(f"{what} interrupted ({short_reason(exc)}); try again") from None
        if not head.startswith(b"%PDF"):
            raise NotFoundError(f"{what}: arXiv sent an empty or non-PDF body; try again later")
        if total is not None and done != total:
            raise NetworkError(f"{what} interrupted after {done} of {total} bytes; try again")
        return done

    def _get_feed(self, url: str, cancel: CancelToken | None, what: str) -> _feed.ParsedFeed:
        resp = self._request(url, cancel, what=f"arXiv {what}")
        content = resp.content
        if resp.status_code != 200:
            detail = error_summary(content)
            if detail:
                raise ApiRejected(detail)
            raise NetworkError(f"arXiv {what} failed: HTTP {resp.status_code}; check the query or arxiv.api_url")
        if not is_atom_feed(content):
            raise NetworkError(f"arXiv {what}: the API sent a malformed feed; try again later or check arxiv.api_url")
        detail = error_summary(content)
        if detail:
            raise ApiRejected(detail)
        try:
            feed = _feed.parse(content)
        except ValueError:  # the library raises on one entry's bad date and loses the whole page
            feed = _feed.parse(drop_bad_dates(content))
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
                    raise unreachable(url, exc, self.timeout) from None
                self._next_allowed = time.monotonic() + self.delay_seconds
                if resp.status_code not in _RETRY_STATUSES:
                    return resp
                resp.close()
                if attempt >= self.num_retries:
                    raise NetworkError(
                        f"{what} failed: HTTP {resp.status_code} ({status_hint(resp.status_code)}) after "
                        f"{attempt + 1} tries; wait a minute and try again, or raise arxiv.delay_seconds"
                    )
                wait = min(self.max_retry_wait, max(self.backoff_base * 2**attempt, retry_after(resp)))
                self._next_allowed = max(self._next_allowed, time.monotonic() + wait)
                self._announce_wait(resp.status_code, cancel)
                attempt += 1

    def _announce_wait(self, status: int, cancel: CancelToken | None) -> None:
        """Count a long retry wait down through `on_wait`, second by second, instead of waiting silently."""
        if self.on_wait is None:
            return
        why = f"arXiv answered HTTP {status} ({status_hint(status)})"
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
