"""Keeping secrets out of messages: credentials in URLs are masked wherever a URL is shown."""

from __future__ import annotations

from urllib.parse import urlsplit


def redact_url(url: str) -> str:
    """The URL with any user:password@ replaced by ***@, for messages and logs."""
    try:
        parts = urlsplit(url)
        if "@" not in parts.netloc:
            return url
        host = parts.netloc.rsplit("@", 1)[1]
    except ValueError:  # not even a URL: mask everything before an @ to be safe
        return "***@" + url.rsplit("@", 1)[1] if "@" in url else url
    return parts._replace(netloc="***@" + host).geturl()
