"""The headless verbs behind `paperdesk add|find|search|list|show|remove`."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from paperdesk.cli_common import UsageError, print_json
from paperdesk.console import ProgressLine, authors as _authors, date as _date
from paperdesk.core.config import Settings
from paperdesk.core.errors import InvalidIdError, PaperdeskError, PdfError
from paperdesk.core.ids import looks_like_arxiv
from paperdesk.core.library.library import MAX_K, Library
from paperdesk.core.commands.paper_sources import add_source, file_source
from paperdesk.core.commands.parse import is_folder
from paperdesk.core.sources.arxiv import ArxivClient, ArxivPaper
from paperdesk.core.progress import counted


def open_library(settings: Settings) -> Library:
    """The library, saying on stderr when it has to wait for another process's write."""
    return Library(settings, on_wait=lambda message: print(message, file=sys.stderr, flush=True))


def _is_file(source: str) -> bool:
    try:
        return Path(source).exists()
    except (OSError, ValueError):  # a name too long for the OS, or with a NUL byte, names no file
        return False


def cmd_add(args: argparse.Namespace, settings: Settings) -> int:
    sources = [s for s in args.sources if s.strip()]  # "" is no source (and Path("") would be the cwd)
    if not sources:
        raise UsageError("add: give an arXiv id (2302.07302), an arXiv URL, the path of a PDF file or a folder")
    if len(sources) > 1 or is_folder(sources[0]):
        from paperdesk.cli_add_many import cmd_add_many

        return cmd_add_many(sources, args, settings, open_library)
    source = sources[0]
    if not source.strip():
        raise UsageError("add: give an arXiv id (2302.07302), an arXiv URL or the path of a PDF file")
    library = open_library(settings)
    progress = ProgressLine()
    try:
        if _is_file(source):  # the shell's rule: a file named like an arXiv id is that paper
            client = None if settings["offline"] else ArxivClient.from_settings(settings)
            if client is not None:
                client.on_wait = progress.countdown
            result = add_source(library, file_source(Path(source)), client, progress=progress)
        elif not looks_like_arxiv(source):
            if source.lower().endswith(".pdf"):
                raise PdfError(f"no such file: {source}")
            shown = source if len(source) <= 80 else source[:77] + "..."
            raise InvalidIdError(
                f"not an arXiv id and no such file: {shown!r}; use an id like 2302.07302, an arXiv URL, or a PDF path"
            )
        else:
            if settings["offline"]:
                raise PaperdeskError(f"offline: cannot download {source}; add a local PDF instead or drop --offline")
            client = ArxivClient.from_settings(settings)
            client.on_wait = progress.countdown
            result = library.add_arxiv(source, client, progress=progress)
    finally:
        progress.close()
    if result.bad_pages:
        pages = ", ".join(map(str, result.bad_pages))
        print(f"warning: page(s) {pages} of the PDF are damaged; their text may be missing or incomplete",
              file=sys.stderr)
    paper = result.paper
    chunks = len(library.store.chunks_of(paper.id))
    if args.json:
        print_json({"paper": paper.to_json(), "created": result.created, "chunks": chunks})
    else:
        verb = "added" if result.created else "already in the library:"
        print(f"{verb} {paper.id}  {paper.title} ({paper.page_count} pages, {chunks} chunks)")
    return 0


def cmd_find(args: argparse.Namespace, settings: Settings) -> int:
    if settings["offline"]:
        raise PaperdeskError("offline: find needs arXiv; search your library with `paperdesk search` instead")
    query = " ".join(args.query).strip()
    if not query:
        raise UsageError("find: empty query")
    limit = args.max or settings["arxiv.max_results"]
    if limit < 1:
        raise UsageError("find: --max must be at least 1")
    results = ArxivClient.from_settings(settings).find(query, max_results=limit)
    if args.json:
        print_json({"results": [_arxiv_json(r) for r in results]})
        return 0
    if not results:
        print(f"no arXiv results for {query!r}")
    for n, r in enumerate(results, start=1):
        year = f" ({r.year})" if r.year else ""
        print(f"{n:>3}. {r.short_id:<16} {r.title}\n     {_authors(r.authors)}{year}")
    return 0


def _arxiv_json(r: ArxivPaper) -> dict:
    return {
        "id": r.short_id,
        "arxiv_id": r.arxiv_id,
        "version": r.version,
        "title": r.title,
        "authors": r.authors,
        "abstract": r.abstract,
        "published": r.published,
        "updated": r.updated,
        "categories": r.categories,
        "pdf_url": r.pdf_url,
    }


def cmd_search(args: argparse.Namespace, settings: Settings) -> int:
    if not 1 <= args.k <= MAX_K:
        raise UsageError(f"search: --k must be between 1 and {MAX_K}")
    library = Library(settings)
    hits = library.search(" ".join(args.query), k=args.k, mode=args.mode, papers=args.paper)
    if args.json:
        print_json({"hits": [h.to_json() for h in hits]})
        return 0
    if not hits:
        print("no matches in the library")
    for n, h in enumerate(hits, start=1):
        pages = f"p. {h.page_start}" if h.page_start == h.page_end else f"pp. {h.page_start}-{h.page_end}"
        section = f"  {h.section}" if h.section else ""
        print(f"{n:>3}. [{h.score:.3f}] {h.title}  ({h.paper_id}, {pages}){section}\n     {h.snippet}")
    return 0


def cmd_list(args: argparse.Namespace, settings: Settings) -> int:
    library = Library(settings)
    per_page = 20
    total = library.store.count_papers()
    pages = max(1, -(-total // per_page))
    if not 1 <= args.page <= pages:
        raise UsageError(f"list: page {args.page} does not exist; the library has {counted(pages, 'page')}")
    papers, total = library.list(args.page, per_page)
    options = _list_filter(args)
    if options is not None:  # filters and sorting work on the whole library, then it is paged
        chosen = options.apply(library.store.list_papers(), library.store.paper_meta.tags_by_paper())
        total, pages = len(chosen), max(1, -(-len(chosen) // per_page))
        papers = chosen[(args.page - 1) * per_page : args.page * per_page]
    if args.json:
        print_json({"papers": [p.to_json() for p in papers], "page": args.page, "pages": pages, "total": total})
        return 0
    if not papers and options is not None:
        print(f"no paper matches {options.describe()}; paperdesk list shows them all")
    elif not papers:
        print("the library is empty; add a paper with `paperdesk add ID|FILE`")
    start = (args.page - 1) * per_page
    for n, p in enumerate(papers, start=start + 1):
        print(f"{n:>3}. {p.id:<20} {_date(p.added)}  {p.title}")
    if pages > 1:
        print(f"page {args.page} of {pages} ({total} papers); next: paperdesk list --page {min(pages, args.page + 1)}")
    return 0


def _list_filter(args: argparse.Namespace):
    """The list's filter from its options, or None when it lists everything in added order."""
    from paperdesk.core.commands.list_options import parse_list_options

    parts = [*args.words]
    for name in ("tag", "author", "year"):
        if getattr(args, name, None):
            parts += [f"--{name}", getattr(args, name)]
    parts += ["--sort", args.sort] + (["--reverse"] if args.reverse else [])
    import shlex

    _, options = parse_list_options(" ".join(shlex.quote(p) for p in parts))
    return options if options.active else None


def cmd_show(args: argparse.Namespace, settings: Settings) -> int:
    library = Library(settings)
    if args.page is not None:
        paper, text = library.page_text(args.id, args.page)
        if args.json:
            print_json({"id": paper.id, "page": args.page, "pages": paper.page_count, "text": text})
        else:
            print(f"{paper.title}: page {args.page} of {paper.page_count}\n\n{text}")
        return 0
    paper = library.get(args.id)
    chunks = library.store.chunks_of(paper.id)
    sections = list(dict.fromkeys(c.section for c in chunks if c.section))
    if args.json:
        print_json({**paper.to_json(), "chunks": len(chunks), "sections": sections})
        return 0
    print(paper.title)
    print(_authors(paper.authors, limit=10))
    print(f"id: {paper.id}   pages: {paper.page_count}   chunks: {len(chunks)}   added: {_date(paper.added)}")
    if paper.published:
        print(f"published: {paper.published[:10]}   categories: {', '.join(paper.categories)}")
    if sections:
        print("sections: " + "; ".join(sections))
    if paper.abstract:
        print("\n" + paper.abstract)
    return 0


def cmd_remove(args: argparse.Namespace, settings: Settings) -> int:
    library = open_library(settings)
    paper = library.get(args.id)
    library.remove(paper.id)
    if args.json:
        print_json({"removed": paper.id})
    else:
        print(f"removed {paper.id}  {paper.title}")
    return 0
