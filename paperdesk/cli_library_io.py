"""`paperdesk export|import|tag|untag`: papers in and out from the command line.

The same core as the app's commands (library_export, library_import, paper_meta); ids are library or
arXiv ids, since the CLI has no result list. Output files follow the app: a default name in the working
directory never overwrites an earlier export; --out writes exactly where asked, and --out - to stdout.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from paperdesk.cli_common import UsageError, print_json
from paperdesk.core.config import Settings


def add_parser(sub: Any) -> None:
    p = sub.add_parser("export", help="write BibTeX for papers, or a summary/report as Markdown, to a file",
                       description="export bibtex [ID ...|--all] | export markdown summary ID | export markdown "
                                   "report [REPORT-ID] (default: the newest saved report)")
    p.add_argument("format", choices=("bibtex", "markdown"))
    p.add_argument("what", nargs="*", help="bibtex: paper ids (none: --all); markdown: summary ID | report [N]")
    p.add_argument("--all", action="store_true", help="bibtex: every paper in the library")
    p.add_argument("--out", type=Path, help="file to write, - for stdout (default: paperdesk.bib / summary-ID.md / "
                                            "report.md here)")
    p.add_argument("--json", action="store_true")
    p = sub.add_parser("import", help="add the papers a BibTeX file or a Zotero library names",
                       description="bibtex FILE: the entries with an arXiv id or a local PDF (file = {...} fields "
                                   "are followed). zotero [DIR]: every item of a Zotero data directory (default "
                                   "~/Zotero) with its PDF, Zotero's metadata, collections as tags and notes. "
                                   "What has no PDF is listed as skipped.")
    p.add_argument("format", choices=("bibtex", "zotero"))
    p.add_argument("file", type=Path, nargs="?", help="the .bib file, or Zotero's data directory")
    p.add_argument("--json", action="store_true")
    for verb, text in (("tag", "tag a library paper"), ("untag", "take tags off a library paper")):
        p = sub.add_parser(verb, help=text, description=text)
        p.add_argument("id")
        p.add_argument("tags", nargs="+")
        p.add_argument("--json", action="store_true")


def _library(settings: Settings):
    from paperdesk.cli_verbs import open_library

    return open_library(settings)


def _write(out: Path | None, default: Any, text: str) -> Path | None:
    """The export to `out` (a default name when None); None when it went to stdout (`--out -`)."""
    from paperdesk.core.library.export import is_stdout, write_export

    if is_stdout(out):
        sys.stdout.write(text)
        sys.stdout.flush()
        return None
    return write_export(out or default(), text)


def cmd_export(args: argparse.Namespace, settings: Settings) -> int:
    from paperdesk.core.library.export import bibtex_for, default_path, is_stdout, markdown_for, summary_markdown

    if args.json and is_stdout(args.out):
        raise UsageError("export: --json and --out - both write to stdout; give --out a file name, or drop --json")
    library = _library(settings)
    store = library.store
    if args.format == "bibtex":
        if args.all and args.what:
            raise UsageError("export bibtex: --all or paper ids, not both")
        papers = [library.get(pid) for pid in args.what] if args.what else store.list_papers()
        if not papers:
            raise UsageError("export bibtex: the library is empty; add papers first (paperdesk add ID|FILE)")
        path = _write(args.out, lambda: default_path("paperdesk", ".bib"), bibtex_for(store, papers))
        what = f"{len(papers)} BibTeX entr{'y' if len(papers) == 1 else 'ies'}"
    elif args.what[:1] == ["summary"] and len(args.what) == 2:
        paper = library.get(args.what[1])
        current = store.current_revision(paper.id)
        if current is None:
            raise UsageError(f"export: {paper.id} has no summary yet; paperdesk summarize {paper.id} writes one")
        path = _write(args.out, lambda: default_path(f"summary-{paper.id}", ".md"),
                      summary_markdown(paper, current.text))
        what = f"the summary of {paper.id}"
    elif args.what[:1] == ["report"] and len(args.what) <= 2:
        from paperdesk.core.db.desk_store import DeskStore

        reports = DeskStore(store).reports()
        if len(args.what) == 2:
            reports = [r for r in reports if str(r.id) == args.what[1]]
        if not reports:
            raise UsageError("export: no such saved report; save a sem-search answer or research report first")
        report = reports[0]
        papers = store.papers_by_ids(list({s.get("paper_id", "") for s in report.sources}))
        path = _write(args.out, lambda: default_path("report", ".md"),
                      markdown_for(report.title, report.text, report.sources, papers))
        what = f"the report {report.title!r}"
    else:
        raise UsageError("export markdown needs summary ID or report [N]")
    if path is None:
        print(f"exported {what} to stdout", file=sys.stderr)
    elif args.json:
        print_json({"exported": what, "path": str(path)})
    else:
        print(f"exported {what} to {path}")
    return 0


def cmd_import(args: argparse.Namespace, settings: Settings) -> int:
    from paperdesk.core.cancel import CancelToken
    from paperdesk.core.library.importer import import_entries, read_bib
    from paperdesk.core.sources.arxiv import ArxivClient

    if args.format == "zotero":
        return _import_zotero(args, settings)
    if args.file is None:
        raise UsageError("import bibtex: give the .bib file to read")
    library = _library(settings)
    entries = read_bib(args.file)
    offline = "started with --offline" if settings["offline"] else None
    report = import_entries(entries, args.file.expanduser().parent, library, lambda: ArxivClient.from_settings(settings),
                            offline, CancelToken())
    if args.json:
        print_json({"added": report.added, "present": report.present, "skipped": report.skipped})
    else:
        for line in report.lines():
            print(line)
        print(report.summary(args.file.name), file=sys.stderr)
    return 0


def _import_zotero(args: argparse.Namespace, settings: Settings) -> int:
    from paperdesk.console import ProgressLine
    from paperdesk.core.cancel import CancelToken
    from paperdesk.core.library.zotero import default_dir, import_zotero

    folder = (args.file or default_dir()).expanduser()
    library = _library(settings)
    cancel = CancelToken()
    line = None if args.json else ProgressLine()
    try:
        report = import_zotero(library, folder, cancel, progress=line)
    except KeyboardInterrupt:
        print("stopped: the papers added so far are kept; run import zotero again to go on", file=sys.stderr)
        return 1
    finally:
        if line is not None:
            line.close()
        library.close()
    if args.json:
        print_json({"added": report.added, "present": report.present, "skipped": report.skipped,
                    "failed": report.failed})
    else:
        for text in report.lines():
            print(text)
        print(report.summary(), file=sys.stderr)
    return 1 if report.failed else 0


def _tagging(args: argparse.Namespace, settings: Settings, add: bool) -> int:
    from paperdesk.core.db.paper_meta import clean_tag

    library = _library(settings)
    paper = library.get(args.id)
    tags = [clean_tag(t) for t in args.tags]
    meta = library.store.paper_meta
    for tag in tags:
        meta.add_tag(paper.id, tag) if add else meta.remove_tag(paper.id, tag)
    now = meta.tags_of(paper.id)
    if args.json:
        print_json({"id": paper.id, "tags": now})
    else:
        print(f"{paper.id}: {', '.join(now) if now else '(no tags)'}")
    return 0


def cmd_tag(args: argparse.Namespace, settings: Settings) -> int:
    return _tagging(args, settings, add=True)


def cmd_untag(args: argparse.Namespace, settings: Settings) -> int:
    return _tagging(args, settings, add=False)
