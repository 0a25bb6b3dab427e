"""Citations in a draft as things to follow: `[n]` (answers, reports) and `[p. N]` (summaries).

`citation_keys` lists them in reading order, `link_citations` turns them into
Markdown links a face can click (`cite:3`, `page:4`), and `citation_target`
says where one leads: the paper, the page and the passage to highlight there
(the source's quote, else the start of the cited chunk; for a summary's
[p. N], the page sentence(s) the citing sentence comes from).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Sequence

from paperdesk.core.errors import InvalidArgumentError

if TYPE_CHECKING:
    from paperdesk.core.db.store import Store
    from paperdesk.core.commands.views import DraftView

# [3], [3, 5] or [p. 4] / [pp. 4-5]; a Markdown link's text ([x](url)) is left alone
_CITATION = re.compile(r"\[\s*(?:(\d{1,3}(?:\s*,\s*\d{1,3})*)|pp?\.\s*(\d+)(?:\s*[-–]\s*\d+)?)\s*\](?!\()")


@dataclass(frozen=True)
class Target:
    paper_id: str
    page: int
    passage: str
    label: str  # "[3]" or "[p. 4]"


def citation_keys(text: str) -> list[str]:
    """Citation keys in reading order, each once: "3" for [3], "p4" for [p. 4]."""
    keys: list[str] = []
    for m in _CITATION.finditer(text):
        found = [n.strip() for n in m.group(1).split(",")] if m.group(1) else [f"p{m.group(2)}"]
        keys += [k for k in found if k not in keys]
    return keys


def link_citations(markdown: str) -> str:
    """Each citation as a Markdown link (`[\\[3\\]](cite:3)`), so a click can follow it."""
    def link(m: re.Match[str]) -> str:
        if m.group(1):
            numbers = [n.strip() for n in m.group(1).split(",")]
            return ", ".join(f"[\\[{n}\\]](cite:{n})" for n in numbers)
        label = m.group(0).strip("[]").strip()
        return f"[\\[{label}\\]](page:{m.group(2)})"

    return _CITATION.sub(link, markdown)


def key_of_href(href: str) -> str | None:
    """The citation key a clicked link stands for ("cite:3" -> "3", "page:4" -> "p4"), or None."""
    kind, _, value = href.partition(":")
    if kind == "cite" and value.isdigit():
        return value
    if kind == "page" and value.isdigit():
        return f"p{value}"
    return None


def citation_target(view: "DraftView", key: str, store: "Store") -> Target:
    """Where citation `key` of the draft leads; InvalidArgumentError when the draft has no such source."""
    sources: Sequence[dict[str, Any]] = view.sources or []
    if key.startswith("p"):
        page = int(key[1:])
        if not view.paper_id:
            raise InvalidArgumentError(f"[p. {page}] names no paper in this {view.kind}")
        source = next((s for s in sources if s.get("page") == page), {})
        passage = _passage(source, store)
        if not passage:  # a summary keeps no quotes: the page sentence(s) its citing sentence comes from
            from paperdesk.core.agents.cited_passage import summary_passage

            passage = summary_passage(view.text, page, store.page_text(view.paper_id, page) or "")
        return Target(view.paper_id, page, passage, f"[p. {page}]")
    source = next((s for s in sources if str(s.get("n")) == key), None)
    if source is None:
        raise InvalidArgumentError(f"[{key}] is not among the {view.kind}'s sources")
    return Target(source["paper_id"], int(source.get("page") or 1), _passage(source, store), f"[{key}]")


def _passage(source: dict[str, Any], store: "Store") -> str:
    quote = " ".join(str(source.get("quote") or "").replace("...", " ").split())
    if len(quote.split()) >= 4:
        return quote
    chunk_id = source.get("chunk_id")
    if chunk_id is not None:
        chunk = store.chunks_by_ids([int(chunk_id)]).get(int(chunk_id))
        if chunk is not None:
            return " ".join(chunk.text.split()[:40])
    return quote
