"""A real HTTP server on 127.0.0.1 that behaves like arXiv's export API.

GET /api/query answers with an Atom 1.0 feed shaped like export.arxiv.org's
(opensearch header, arxiv:comment, links, primary_category, categories) over
the papers in `arxiv_catalogue`; GET /pdf/<id> serves the fixture PDF. Tests
inject faults (429/503 with Retry-After, cut-off or non-PDF downloads,
malformed feeds) and read `requests` to see what reached the server and when.
"""

from __future__ import annotations

import base64
import hashlib
import re
import socket
import textwrap
import threading
import time
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, quote, urlsplit
from xml.sax.saxutils import escape, quoteattr

from arxiv_catalogue import BY_ID, CATALOGUE, CatalogueEntry

_ID_RE = re.compile(r"^(?P<base>\d{4}\.\d{4,5}|[a-z-]+(?:\.[A-Z]{2})?/\d{7})(?:v(?P<version>\d+))?$")
_FIELDS = {"ti": ("title",), "abs": ("abstract",), "au": ("authors",), "cat": ("categories",)}
_OPERATORS = {"AND", "OR", "ANDNOT", "NOT"}
_OPENSEARCH = 'xmlns:opensearch="http://a9.com/-/spec/opensearch/1.1/"'
_ARXIV_NS = 'xmlns:arxiv="http://arxiv.org/schemas/atom"'


@dataclass(frozen=True)
class LoggedRequest:
    path: str  # path and query string, as sent
    time: float  # time.monotonic() when the request line arrived


def _words(text: str) -> list[str]:
    return re.findall(r"[a-z0-9]+", text.lower())


def _score(entry: CatalogueEntry, query: str) -> int:
    """Occurrences of the query's terms in the fields they name (title+abstract by default)."""
    fields = {
        "title": _words(entry.title),
        "abstract": _words(entry.abstract),
        "authors": _words(" ".join(entry.authors)),
        "categories": [c.lower() for c in entry.categories],
    }
    score = 0
    for m in re.finditer(r'(?:(?P<field>[a-z]+):)?(?P<value>"[^"]*"|[^\s()"]+)', query.replace("(", " ").replace(")", " ")):
        value = m.group("value")
        if m.group("field") is None and value in _OPERATORS:
            continue
        names = _FIELDS.get(m.group("field") or "", ("title", "abstract"))
        terms = [value.lower()] if names == ("categories",) else _words(value)
        score += sum(fields[name].count(term) for name in names for term in terms)
    return score


def _wrap(text: str, indent: str) -> str:
    # arXiv hard-wraps titles and abstracts near 80 columns; clients must collapse it.
    return ("\n" + indent).join(textwrap.wrap(escape(text), 78, break_on_hyphens=False, break_long_words=False))


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"  # keep-alive, like the real service
    server: "_Server"

    def log_message(self, format: str, *args: object) -> None:  # quiet test output
        pass

    def do_GET(self) -> None:
        fake = self.server.fake
        fake._log(self.path)
        url = urlsplit(self.path)
        if url.path == "/api/query":
            fake._api(self, parse_qs(url.query, keep_blank_values=True))
        elif url.path.startswith("/pdf/"):
            fake._pdf(self, url.path[len("/pdf/"):].removesuffix(".pdf"))
        else:
            self.send_body(404, b"<html><body>Not Found</body></html>", "text/html")

    def send_body(self, status: int, body: bytes, content_type: str, headers: dict[str, str] | None = None) -> None:
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        for name, value in (headers or {}).items():
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(body)


class _Server(ThreadingHTTPServer):
    def handle_error(self, request, client_address) -> None:  # a client that hangs up mid-body is expected here
        pass

    daemon_threads = True
    fake: "ArxivServer"


class ArxivServer:
    """The fake arXiv: `api_url` for ArxivClient, `base_url` for PDFs; see the fault setters."""

    def __init__(self) -> None:
        self._httpd = _Server(("127.0.0.1", 0), _Handler)
        self._httpd.fake = self
        self.base_url = f"http://127.0.0.1:{self._httpd.server_address[1]}"
        self.api_url = self.base_url + "/api/query"
        self._lock = threading.Lock()
        self._thread: threading.Thread | None = None
        self._pdf_cache: dict[str, bytes] = {}
        self.reset()

    # -- lifecycle -------------------------------------------------------
    def start(self) -> "ArxivServer":
        self._thread = threading.Thread(target=self._httpd.serve_forever, name="fake-arxiv", daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        self._httpd.shutdown()
        self._httpd.server_close()

    def reset(self) -> None:
        """Clear faults and the request log."""
        with self._lock:
            self._log_entries: list[LoggedRequest] = []
            self._fail_left = 0
            self._fail_status = 503
            self._retry_after: str | None = None
            self._malformed_left = 0
            self._cut_after: int | None = None
            self._non_pdf = False

    # -- fault injection -------------------------------------------------
    def fail_api(self, times: int, status: int = 503, retry_after: float | None = None) -> None:
        """Answer the next `times` API requests with `status` (and Retry-After when given)."""
        with self._lock:
            self._fail_left, self._fail_status = times, status
            self._retry_after = None if retry_after is None else f"{retry_after:g}"

    def send_malformed_feed(self, times: int = 1) -> None:
        """Answer the next `times` API requests with 200 and a body that is not an Atom feed."""
        with self._lock:
            self._malformed_left = times

    def cut_pdf_after(self, nbytes: int | None) -> None:
        """Close the socket after `nbytes` of every PDF body (Content-Length still promises all)."""
        with self._lock:
            self._cut_after = nbytes

    def serve_non_pdf(self, enabled: bool = True) -> None:
        """Answer PDF requests with 200 and an HTML page, as arXiv does for captchas."""
        with self._lock:
            self._non_pdf = enabled

    # -- request log -----------------------------------------------------
    @property
    def requests(self) -> list[LoggedRequest]:
        """Every request that reached the server since the last reset, oldest first."""
        with self._lock:
            return list(self._log_entries)

    def api_requests(self) -> list[LoggedRequest]:
        return [r for r in self.requests if r.path.startswith("/api/query")]

    def _log(self, path: str) -> None:
        with self._lock:
            self._log_entries.append(LoggedRequest(path, time.monotonic()))

    # -- /api/query ------------------------------------------------------
    def _api(self, h: _Handler, params: dict[str, list[str]]) -> None:
        with self._lock:
            fail = self._fail_left > 0
            if fail:
                self._fail_left -= 1
            malformed = not fail and self._malformed_left > 0
            if malformed:
                self._malformed_left -= 1
            status, retry_after = self._fail_status, self._retry_after
        if fail:
            headers = {"Retry-After": retry_after} if retry_after else {}
            h.send_body(status, b"Rate exceeded.\n" if status == 429 else b"Service Unavailable\n", "text/plain", headers)
            return
        if malformed:
            h.send_body(200, b"<html><body><h1>Oops</h1><p>not a feed", "text/html")
            return

        def arg(name: str, default: str = "") -> str:
            return params.get(name, [default])[0]

        query, ids = arg("search_query"), [i for i in arg("id_list").split(",") if i.strip()]
        try:
            start, max_results = int(arg("start", "0")), int(arg("max_results", "10"))
            if start < 0 or max_results < 0:
                raise ValueError
        except ValueError:
            self._send_error(h, params, "incorrect value for start/max_results")
            return
        matches: list[CatalogueEntry] = []
        for raw in ids:
            m = _ID_RE.match(raw.strip())
            if not m:
                self._send_error(h, params, f"incorrect id format for {raw}")
                return
            entry = BY_ID.get(m.group("base"))
            if entry and (m.group("version") is None or int(m.group("version")) == entry.version):
                matches.append(entry)
        if query:
            scored = [(_score(e, query), i, e) for i, e in enumerate(matches if ids else CATALOGUE)]
            matches = [e for s, _, e in sorted(scored, key=lambda t: (-t[0], t[1])) if s > 0]
        sort_by, order = arg("sortBy", "relevance"), arg("sortOrder", "descending")
        if sort_by in ("submittedDate", "lastUpdatedDate"):
            key = "published" if sort_by == "submittedDate" else "updated"
            matches.sort(key=lambda e: getattr(e, key), reverse=order == "descending")
        page = matches[start:start + max_results]
        entries = "".join(self._entry(e) for e in page)
        h.send_body(200, self._feed(params, len(matches), start, max_results, entries), "application/atom+xml; charset=utf-8")

    def _feed(self, params: dict[str, list[str]], total: int, start: int, per_page: int, entries: str) -> bytes:
        raw = "&".join(f"{k}={params.get(k, [''])[0]}" for k in ("search_query", "id_list", "start", "max_results"))
        digest = base64.b64encode(hashlib.sha1(raw.encode()).digest()).decode().rstrip("=")
        return (
            '<?xml version="1.0" encoding="UTF-8"?>\n'
            '<feed xmlns="http://www.w3.org/2005/Atom">\n'
            f'  <link href="http://arxiv.org/api/query?{quote(raw, safe="")}" rel="self" type="application/atom+xml"/>\n'
            f'  <title type="html">ArXiv Query: {escape(raw)}</title>\n'
            f"  <id>http://arxiv.org/api/{digest}</id>\n"
            f"  <updated>{time.strftime('%Y-%m-%d')}T00:00:00-04:00</updated>\n"
            f"  <opensearch:totalResults {_OPENSEARCH}>{total}</opensearch:totalResults>\n"
            f"  <opensearch:startIndex {_OPENSEARCH}>{start}</opensearch:startIndex>\n"
            f"  <opensearch:itemsPerPage {_OPENSEARCH}>{per_page}</opensearch:itemsPerPage>\n"
            f"{entries}</feed>\n"
        ).encode("utf-8")

    def _entry(self, e: CatalogueEntry) -> str:
        authors = "".join(f"    <author>\n      <name>{escape(a)}</name>\n    </author>\n" for a in e.authors)
        categories = "".join(f'    <category term="{c}" scheme="http://arxiv.org/schemas/atom"/>\n' for c in e.categories)
        return (
            "  <entry>\n"
            f"    <id>http://arxiv.org/abs/{e.short_id}</id>\n"
            f"    <updated>{e.updated}</updated>\n"
            f"    <published>{e.published}</published>\n"
            f"    <title>{_wrap(e.title, '  ')}</title>\n"
            f"    <summary>  {_wrap(e.abstract, '')}\n</summary>\n"
            f"{authors}"
            f"    <arxiv:comment {_ARXIV_NS}>{escape(e.comment)}</arxiv:comment>\n"
            f'    <link href="http://arxiv.org/abs/{e.short_id}" rel="alternate" type="text/html"/>\n'
            f'    <link title="pdf" href={quoteattr(f"{self.base_url}/pdf/{e.short_id}")} rel="related" type="application/pdf"/>\n'
            f'    <arxiv:primary_category {_ARXIV_NS} term="{e.categories[0]}" scheme="http://arxiv.org/schemas/atom"/>\n'
            f"{categories}"
            "  </entry>\n"
        )

    def _send_error(self, h: _Handler, params: dict[str, list[str]], message: str) -> None:
        # arXiv reports a bad request as HTTP 400 with a one-entry feed whose id is under api/errors.
        anchor = "http://arxiv.org/api/errors#" + re.sub(r"\W+", "_", message)
        entry = (
            "  <entry>\n"
            f"    <id>{escape(anchor)}</id>\n"
            "    <title>Error</title>\n"
            f"    <summary>{escape(message)}</summary>\n"
            f"    <updated>{time.strftime('%Y-%m-%d')}T00:00:00-04:00</updated>\n"
            f'    <link href={quoteattr(anchor)} rel="alternate" type="text/html"/>\n'
            "    <author>\n      <name>arXiv api core</name>\n    </author>\n"
            "  </entry>\n"
        )
        h.send_body(400, self._feed(params, 1, 0, 1, entry), "application/atom+xml; charset=utf-8")

    # -- /pdf/<id> -------------------------------------------------------
    def _pdf(self, h: _Handler, id_text: str) -> None:
        m = _ID_RE.match(id_text)
        entry = BY_ID.get(m.group("base")) if m else None
        if entry is None or (m.group("version") and int(m.group("version")) != entry.version):
            h.send_body(404, b"<html><body>No such paper</body></html>", "text/html")
            return
        with self._lock:
            non_pdf, cut_after = self._non_pdf, self._cut_after
        if non_pdf:
            h.send_body(200, b"<!DOCTYPE html><html><body>Are you a robot?</body></html>", "text/html")
            return
        data = self._pdf_cache.get(entry.arxiv_id) or entry.pdf_path.read_bytes()
        self._pdf_cache[entry.arxiv_id] = data
        if cut_after is None:
            h.send_body(200, data, "application/pdf")
            return
        h.send_response(200)
        h.send_header("Content-Type", "application/pdf")
        h.send_header("Content-Length", str(len(data)))
        h.end_headers()
        h.wfile.write(data[:cut_after])
        h.wfile.flush()
        h.close_connection = True
        h.connection.shutdown(socket.SHUT_RDWR)  # the connection drops mid-body
