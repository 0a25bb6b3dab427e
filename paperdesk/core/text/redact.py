"""Keeping secrets out of messages: credentials in URLs are masked wherever a URL is shown.

A URL may carry a secret in its userinfo (`http://alice:sk-...@host`) or in a
query parameter (`?api_key=...`, `&token=...`, a signed link's `sig=`); both
are sent as configured and shown as `***`. `redact_text` does the same for
every URL inside a message (doctor's checks, config values, the status bar).
"""

from __future__ import annotations

import re
from typing import Any
from urllib.parse import unquote, urlsplit

MASK = "***"
# Parameter names that hold a secret, matched on their last word: api_key, apiKey, x-api-key, access_token,
# client_secret, X-Amz-Signature, X-Amz-Credential, sig, password ... Masking a harmless one costs nothing.
_SECRET_NAME = re.compile(
    r"(?:^|[^a-z])(?:api_?key|key|token|secret|password|passwd|pwd|pass|sig|signature|credential|credentials|"
    r"auth|authorization|session|sessionid)$|(?:apikey|token|secret|password|signature|credential)$",
    re.IGNORECASE,
)
# A URL in running text; a sentence's closing period or bracket is not part of it.
_URL = re.compile(r"\b[a-zA-Z][a-zA-Z0-9+.\-]*://[^\s'\"<>`]*[^\s'\"<>`.,;:!?)\]]")


def secret_name(name: str) -> bool:
    """Whether a query parameter called `name` carries a secret (a key, token, password, signature ...)."""
    return bool(_SECRET_NAME.search(unquote(name).strip()))


def _mask_pairs(text: str) -> str:
    """`a=1&api_key=xyz` -> `a=1&api_key=***`, every other byte as it was."""
    pairs = []
    for pair in text.split("&"):
        name, eq, value = pair.partition("=")
        pairs.append(f"{name}={MASK}" if eq and value and secret_name(name) else pair)
    return "&".join(pairs)


def redact_url(url: str) -> str:
    """The URL with any user:password@ replaced by ***@ and secret query values by ***, for messages and logs."""
    try:
        parts = urlsplit(url)
    except ValueError:  # not even a URL: mask everything before an @ to be safe
        return MASK + "@" + url.rsplit("@", 1)[1] if "@" in url else url
    masked = parts._replace(netloc=MASK + "@" + parts.netloc.rsplit("@", 1)[1] if "@" in parts.netloc else parts.netloc,
                            query=_mask_pairs(parts.query),
                            fragment=_mask_pairs(parts.fragment))  # OAuth's #access_token=...
    return url if masked == parts else masked.geturl()  # unchanged URLs are shown exactly as written


def redact_text(text: str) -> str:
    """`text` with every URL in it redacted (see `redact_url`)."""
    if "://" not in text:
        return text
    return _URL.sub(lambda m: redact_url(m.group(0)), text)


def redact_values(value: Any) -> Any:
    """A JSON-like value (dicts, lists, strings) with every URL in its strings redacted."""
    if isinstance(value, str):
        return redact_text(value)
    if isinstance(value, dict):
        return {k: redact_values(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [redact_values(v) for v in value]
    return value
