"""How arXiv's HTTP answers and failures are told: Retry-After, status hints, a PDF over the size cap,
a connection that failed (unreachable, refused, timed out, not a URL), each as a line that says what to do."""

from __future__ import annotations

from urllib.parse import urlsplit

import requests

from paperdesk.core.errors import ArxivUnreachableError, NetworkError
from paperdesk.core.text.redact import redact_url


def retry_after(resp: requests.Response) -> float:
    value = resp.headers.get("Retry-After", "")
    try:
        return max(0.0, float(value))
    except ValueError:
        return 0.0  # an HTTP-date or garbage: fall back to our own backoff


def status_hint(status: int) -> str:
    return "rate limited" if status == 429 else "server unavailable" if status in (502, 503, 504) else "server error"


def too_big(what: str, size: int, limit: int) -> str:
    return (f"{what} stopped: the PDF is over {limit / 1e6:g} MB ({size / 1e6:.1f} MB so far); "
            "raise arxiv.max_pdf_mb if it is really that large")


def content_length(resp: requests.Response) -> int | None:
    try:
        return int(resp.headers["Content-Length"])
    except (KeyError, ValueError):
        return None


def short_reason(exc: BaseException) -> str:
    text = str(exc)
    for needle, short in (("IncompleteRead", "connection closed early"), ("reset", "connection reset"),
                          ("timed out", "timed out")):
        if needle in text:
            return short
    return type(exc).__name__


def unreachable(url: str, exc: requests.exceptions.RequestException, timeout: float) -> NetworkError:
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
