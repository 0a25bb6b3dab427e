"""`list` filters and order: title words, --author, --year, --tag, --sort added|year|title, --reverse.

`list transformers --author chang --year 2022-2023 --tag to-read --sort year` keeps
the papers whose title has every word, with an author whose name contains the
text, published in those years and tagged so; then orders them. Parsing is
strict: an unknown option or a bad year is an error that shows the usage.
"""

from __future__ import annotations

import re
import shlex
from dataclasses import dataclass
from typing import TYPE_CHECKING, Sequence

from paperdesk.core.errors import InvalidArgumentError
from paperdesk.core.db.paper_meta import clean_tag

if TYPE_CHECKING:
    from paperdesk.core.db.store import Paper, Store

USAGE = "list [words] [--tag T] [--author A] [--year Y|Y1-Y2] [--sort added|year|title] [--reverse] [--page N]"
SORTS = ("added", "year", "title")


@dataclass(frozen=True)
class ListFilter:
    words: tuple[str, ...] = ()
    tag: str | None = None
    author: str | None = None
    years: tuple[int, int] | None = None
    sort: str = "added"
    reverse: bool = False

    @property
    def active(self) -> bool:
        """Anything narrows or reorders the plain list."""
        return bool(self.words or self.tag or self.author or self.years or self.sort != "added" or self.reverse)

    def describe(self) -> str:
        """What the filter does, for the results title ("tag to-read · year 2023 · by year")."""
        parts = []
        if self.words:
            parts.append(" ".join(self.words))
        if self.tag:
            parts.append(f"tag {self.tag}")
        if self.author:
            parts.append(f"author {self.author}")
        if self.years:
            a, b = self.years
            parts.append(f"year {a}" if a == b else f"years {a}-{b}")
        if self.sort != "added" or self.reverse:
            parts.append(f"by {self.sort}" + (" reversed" if self.reverse else ""))
        return " · ".join(parts)

    def apply(self, papers: Sequence["Paper"], tags: dict[str, list[str]]) -> list["Paper"]:
        """The papers that pass, in the asked order (stable: ties keep the added order)."""
        kept = [p for p in papers if self._passes(p, tags.get(p.id, []))]
        if self.sort == "year":  # newest first; papers without a year go last
            kept.sort(key=lambda p: -(_year(p) or 0))
        elif self.sort == "title":
            kept.sort(key=lambda p: p.title.casefold())
        else:
            kept.sort(key=lambda p: (p.added, p.id))
        return kept[::-1] if self.reverse else kept

    def listed(self, store: "Store") -> list["Paper"]:
        """The library's papers this filter keeps, in its order."""
        papers = store.list_papers()
        return self.apply(papers, store.paper_meta.tags_by_paper()) if self.active else papers

    def _passes(self, paper: "Paper", tags: list[str]) -> bool:
        title = paper.title.casefold()
        if any(word.casefold() not in title for word in self.words):
            return False
        if self.tag and self.tag not in tags:
            return False
        if self.author and not any(self.author.casefold() in a.casefold() for a in paper.authors):
            return False
        if self.years:
            year = _year(paper)
            if year is None or not self.years[0] <= year <= self.years[1]:
                return False
        return True


def _year(paper: "Paper") -> int | None:
    published = paper.published or ""
    return int(published[:4]) if published[:4].isdigit() else None


def parse_list_options(text: str) -> tuple[int | None, ListFilter]:
    """(page or None, filter) from what follows `list`; InvalidArgumentError shows the usage."""
    try:
        parts = shlex.split(text)
    except ValueError as exc:
        raise InvalidArgumentError(f"list: {exc} (usage: {USAGE})") from None
    page: int | None = None
    words: list[str] = []
    values: dict[str, str] = {}
    reverse = False
    i = 0
    while i < len(parts):
        part = parts[i]
        name, eq, inline = part.partition("=")
        if name == "--reverse" and not eq:
            reverse = True
        elif name in ("--page", "--tag", "--author", "--year", "--sort"):
            if eq:
                value = inline
            elif i + 1 < len(parts):
                i += 1
                value = parts[i]
            else:
                raise InvalidArgumentError(f"list: {name} needs a value (usage: {USAGE})")
            values[name] = value
        elif part.startswith("--"):
            raise InvalidArgumentError(f"list: unknown option {part} (usage: {USAGE})")
        elif part.isdigit() and not words and i == len(parts) - 1 and len(parts) == 1:
            values["--page"] = part  # `list 2`: the page, as before
        else:
            words.append(part)
        i += 1
    if "--page" in values:
        page = _positive(values["--page"], "page")
    sort = values.get("--sort", "added").lower()
    if sort not in SORTS:
        raise InvalidArgumentError(f"list: --sort takes {', '.join(SORTS)}, not {sort!r}")
    tag = clean_tag(values["--tag"]) if "--tag" in values else None
    author = values.get("--author", "").strip() or None
    years = _years(values["--year"]) if "--year" in values else None
    return page, ListFilter(tuple(words), tag, author, years, sort, reverse)


def _positive(text: str, what: str) -> int:
    if not text.isdigit():
        raise InvalidArgumentError(f"list: {what} must be a whole number, got {text!r} (usage: {USAGE})")
    if int(text) < 1:
        raise InvalidArgumentError(f"list: {what} starts at 1, got {text} (usage: {USAGE})")
    return int(text)


def _years(text: str) -> tuple[int, int]:
    m = re.fullmatch(r"(\d{4})(?:\s*-\s*(\d{4}))?", text.strip())
    if not m:
        raise InvalidArgumentError(f"list: --year takes a year (2023) or a range (2020-2023), not {text!r}")
    first, last = int(m.group(1)), int(m.group(2) or m.group(1))
    return (min(first, last), max(first, last))
