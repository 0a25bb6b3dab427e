"""When a PDF's paper appeared: from its arXiv stamp, page 1's copyright or venue line, or its metadata.

Dates are ISO 8601 strings as precise as the source allows ("2023-02-14",
"2023-02", "2023"), the form `Paper.published` stores, so `list --year`,
`--sort year` and BibTeX read the year from its first four characters.
"""

from __future__ import annotations

import re
from datetime import date

_MONTHS = {m: i for i, m in enumerate("jan feb mar apr may jun jul aug sep oct nov dec".split(), start=1)}
_STAMP = re.compile(r"arXiv:(\d{2})(\d{2})\.\d{4,5}(?:v(\d+))?\s+\[[\w.\-]+\]\s+(\d{1,2})\s+(\w{3})\w*\s+(\d{4})")
_NEW_ID = re.compile(r"^(\d{2})(\d{2})\.\d{4,5}$")
_OLD_ID = re.compile(r"^[a-z-]+(?:\.[A-Z]{2})?/(\d{2})(\d{2})\d{3}$")
_PDF_DATE = re.compile(r"^(?:D:)?(\d{4})(\d{2})?(\d{2})?")
_YEAR = r"((?:19|20)\d{2})"
# Page 1's own statements of when the paper appeared, strongest first: a copyright line, the ACM
# reference block ("ACM Reference Format: ... 2023."), a venue line ("CHI '23", "Proceedings of ... 2019").
_PAGE_PATTERNS = (
    re.compile(r"(?:©|\(c\)|copyright)\s*(?:©\s*)?" + _YEAR, re.I),
    re.compile(r"ACM Reference Format:.{0,400}?\.\s" + _YEAR + r"\.", re.S),
    re.compile(r"\b(?:Proceedings of|Conference on|Workshop on|Symposium on)\b[^\n]{0,120}?\b" + _YEAR + r"\b"),
    re.compile(r"\b[A-Z][A-Za-z]{1,10} ['’](\d{2}),"),  # "CHI ’23, April 23–28, 2023"
)


def _plausible(year: int) -> bool:
    return 1900 <= year <= date.today().year + 1


def arxiv_id_date(base: str) -> str | None:
    """The month an arXiv id was issued in ("2302.07302" -> "2023-02"), or None for another id."""
    match = _NEW_ID.match(base) or _OLD_ID.match(base)
    if not match:
        return None
    yy, mm = int(match.group(1)), int(match.group(2))
    if not 1 <= mm <= 12:
        return None
    year = (1900 if yy >= 91 else 2000) + yy  # old-style ids began in 1991
    return f"{year}-{mm:02d}"


def stamp_date(stamp: str) -> str | None:
    """The date on arXiv's margin stamp ("arXiv:2302.07302v1 [cs.HC] 14 Feb 2023" -> "2023-02-14").

    The stamp of a later version carries that version's date; the paper appeared when its id was issued,
    so for v2 and later the id's month is the answer.
    """
    match = _STAMP.search(stamp or "")
    if not match:
        return None
    yy, mm, version, day, month, year = match.groups()
    if version not in (None, "1"):
        return f"{2000 + int(yy)}-{mm}"
    number = _MONTHS.get(month.lower()[:3])
    if number is None or not _plausible(int(year)):
        return None
    return f"{year}-{number:02d}-{int(day):02d}"


def page_year(text: str) -> str | None:
    """The year page 1 says the paper appeared in, from a copyright, ACM reference or venue line."""
    for pattern in _PAGE_PATTERNS:
        match = pattern.search(text or "")
        if match:
            digits = match.group(1)
            year = int(digits) if len(digits) == 4 else 2000 + int(digits)
            if _plausible(year):
                return str(year)
    return None


def metadata_date(meta: dict) -> str | None:
    """The PDF's creation (else modification) date, "D:20230217195853Z" -> "2023-02-17"."""
    for key in ("creationDate", "modDate"):
        match = _PDF_DATE.match((meta.get(key) or "").strip())
        if match and _plausible(int(match.group(1))):
            year, month, day = match.groups()
            if month and 1 <= int(month) <= 12:
                return f"{year}-{month}-{day}" if day and 1 <= int(day) <= 31 else f"{year}-{month}"
            return year
    return None


def published_date(stamp: str, first_page_text: str, meta: dict) -> tuple[str | None, str]:
    """(date, where it came from: "arxiv", "page", "metadata" or "") for a parsed PDF."""
    for source, found in (("arxiv", stamp_date(stamp)), ("page", page_year(first_page_text)),
                          ("metadata", metadata_date(meta))):
        if found:
            return found, source
    return None, ""
