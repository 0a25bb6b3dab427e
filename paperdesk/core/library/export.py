"""Exporting from the library: BibTeX entries for papers, Markdown for a summary or a report.

Both are pure text builders over the store; `export_file.write_export` puts
the text where the user asked (through symlinks, keeping the file's mode and
links, never half written). A default file name never overwrites an earlier
export (a -2, -3 ... suffix is added); a name the user gave is written as asked.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any, Sequence

from paperdesk.core.library import bibtex
from paperdesk.core.library.export_file import is_stdout, write_export  # noqa: F401  (the export verbs import them from here)

if TYPE_CHECKING:
    from paperdesk.core.db.store import Paper, Store

CITEKEY, DOI = "citekey", "doi"


def bibtex_for(store: "Store", papers: Sequence["Paper"]) -> str:
    """A .bib text for `papers`, pinning each paper's citation key the first time it is exported."""
    meta = store.paper_meta
    pinned = meta.fields_named(CITEKEY)
    everyone = store.list_papers()  # keys are unique across the whole library, not just this export
    keys = bibtex.assign_keys(everyone, pinned)
    meta.pin_missing(CITEKEY, {p.id: keys[p.id] for p in papers if p.id not in pinned})
    return bibtex.export(papers, keys, meta.fields_named(DOI), meta.tags_by_paper())


def reference_line(n: Any, paper: "Paper | None", source: dict[str, Any]) -> str:
    """`[n] Surname et al. (2023). Title. arXiv:2302.07302, p. 4.` for a references list."""
    title = paper.title if paper else source.get("title") or source.get("paper_id", "")
    who = ""
    if paper and paper.authors:
        who = paper.authors[0].split()[-1] + (" et al." if len(paper.authors) > 1 else "")
    year = f" ({paper.published[:4]})" if paper and (paper.published or "")[:4].isdigit() else ""
    where = f"arXiv:{paper.arxiv_id}" if paper and paper.arxiv_id else source.get("paper_id", "")
    page = f", p. {source['page']}" if source.get("page") else ""
    lead = f"{who}{year}".rstrip(".") + ". " if who or year else ""  # "et al." ends with its own period
    return f"[{n}] {lead}{title}. {where}{page}."


def markdown_for(title: str, text: str, sources: Sequence[dict[str, Any]], papers: dict[str, "Paper"],
                 heading: str = "References") -> str:
    """The draft as a Markdown document: a title, the text, and a references list of what it cites."""
    lines = [f"# {title}", "", text.strip(), ""]
    numbered = [s for s in sources if s.get("n") is not None and s.get("cited", True)]
    if numbered:
        lines += [f"## {heading}", ""]
        lines += [reference_line(s["n"], papers.get(s.get("paper_id", "")), s) for s in numbered]
        lines.append("")
    return "\n".join(lines)


def summary_markdown(paper: "Paper", text: str) -> str:
    """A summary as Markdown; its page citations [p. N] point into the one paper listed under Reference."""
    lines = [f"# Summary: {paper.title}", "", text.strip(), "", "## Reference", "",
             reference_line(1, paper, {}).replace("[1] ", "", 1), ""]
    return "\n".join(lines)


def default_path(stem: str, suffix: str, folder: Path | None = None) -> Path:
    """`stem.suffix` in `folder` (the working directory), or `stem-2.suffix` ... when that exists."""
    folder = folder or Path.cwd()
    path = folder / f"{stem}{suffix}"
    n = 2
    while path.exists():
        path = folder / f"{stem}-{n}{suffix}"
        n += 1
    return path
