"""`paperdesk doctor` and `paperdesk reindex`: find what is wrong, and rebuild the indexes.

doctor prints each check as soon as it is known (ok / skipped / PROBLEM, and
the fix) and exits 0 when nothing is a problem, 1 otherwise. `doctor --rebuild`
makes a new catalogue from the PDFs the library kept. reindex rebuilds the
keyword index and the vector cache from the store, with progress.
"""

from __future__ import annotations

import argparse

from paperdesk.cli_common import print_json
from paperdesk.core.config import Settings
from paperdesk.core.library.health import PROBLEM, Check, run_checks
from paperdesk.core.text.redact import redact_text, redact_values
from paperdesk.core.progress import counted

_MARK = {"ok": "ok", "skipped": "skipped", PROBLEM: "PROBLEM"}


def format_check(check: Check) -> str:
    """One check as doctor prints it; any URL in it (llm.remote_url, arxiv.api_url) without its credentials."""
    line = f"  {_MARK[check.status]:<8} {check.name:<16} {redact_text(check.summary)}"
    if check.fix:
        line += f"\n  {'':<8} {'':<16} fix: {redact_text(check.fix)}"
    return line


def cmd_doctor(args: argparse.Namespace, settings: Settings) -> int:
    if getattr(args, "rebuild", False):
        return cmd_rebuild(args, settings)
    checks = []
    if not args.json:
        print(f"paperdesk doctor: data dir {settings.home}", flush=True)
    for check in run_checks(settings):
        checks.append(check)
        if not args.json:
            print(format_check(check), flush=True)
    problems = [c.name for c in checks if c.status == PROBLEM]
    if args.json:
        print_json({"ok": not problems, "problems": problems, "checks": redact_values([c.to_json() for c in checks])})
    elif problems:
        print(f"{counted(len(problems), 'problem')}: {', '.join(problems)}; each fix is under it")
    else:
        print(f"all {len(checks)} checks passed")
    return 1 if problems else 0


def cmd_rebuild(args: argparse.Namespace, settings: Settings) -> int:
    """`paperdesk doctor --rebuild`: a new catalogue from the library's PDFs (core/library/rebuild.py)."""
    from paperdesk.core.library.rebuild import rebuild_library
    from paperdesk.core.sources.arxiv import ArxivClient

    arxiv = None if settings["offline"] else (lambda: ArxivClient.from_settings(settings))
    say = (lambda line: None) if args.json else (lambda line: print(line, flush=True))
    report = rebuild_library(settings, arxiv=arxiv, say=say)
    if args.json:
        print_json(report.to_json())
    else:
        aside = f"; the damaged catalogue is kept as {report.set_aside}" if report.set_aside else ""
        print(f"rebuilt: {counted(len(report.added), 'paper')} added back ({report.metadata} with their old metadata), "
              f"{counted(len(report.restored), 'missing PDF')} restored, "
              f"{counted(report.duplicates, 'duplicate')} removed{aside}")
        if report.failed:
            print(f"{counted(len(report.failed), 'PDF')} could not be added and stay in lost+found: "
                  + "; ".join(f"{name}: {why}" for name, why in report.failed[:5]))
    return 1 if report.failed else 0


def cmd_reindex(args: argparse.Namespace, settings: Settings) -> int:
    from paperdesk.console import ProgressLine
    from paperdesk.core.library.library import Library

    library = Library(settings)
    progress = None if args.json else ProgressLine()
    try:
        chunks = library.rebuild_indexes(progress=progress)
        papers = library.store.count_papers()
    finally:
        if progress is not None:
            progress.close()
        library.close()
    if args.json:
        print_json({"papers": papers, "chunks": chunks})
    else:
        print(f"reindexed {chunks} chunks of {counted(papers, 'paper')}: keyword index and vector cache rebuilt "
              "from the store")
    return 0
