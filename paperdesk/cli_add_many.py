"""`paperdesk add A B DIR ...`: many papers in one run (core/commands/batch_add.py), with one progress line
(papers done / total, the current file and stage, an ETA), each failure listed with its reason, and one
summary line. Ctrl-C stops after the paper being added is undone; every paper added before stays, and the
same command run again skips them."""

from __future__ import annotations

import argparse
import sys
import time

from paperdesk.cli_common import print_json
from paperdesk.console import ProgressLine
from paperdesk.core.config import Settings
from paperdesk.core.progress import Progress


class BatchLine:
    """The batch's progress on stderr: one rewritten line on a terminal, a line per paper otherwise."""

    def __init__(self) -> None:
        self.stream = sys.stderr
        self.tty = self.stream.isatty()
        self.last = 0.0
        self.current = ""

    def __call__(self, done: int, total: int, name: str, stage: Progress | None, eta: float | None) -> None:
        if not self.tty:
            if name and name != self.current:
                print(f"[{done + 1}/{total}] {name}", file=self.stream, flush=True)
            self.current = name
            return
        now = time.monotonic()
        if name == self.current and now - self.last < 0.1 and stage is not None:
            return
        self.current, self.last = name, now
        what = f" {stage.stage} {stage.amount}".rstrip() if stage is not None and stage.stage != "start" else ""
        left = f" · about {_duration(eta)} left" if eta else ""
        line = f"[{done}/{total}] {name}:{what}{left}" if name else f"[{done}/{total}] done"
        print(f"\r\033[K{line[:max(20, _width() - 1)]}", end="", file=self.stream, flush=True)

    def close(self) -> None:
        if self.tty:
            print("\r\033[K", end="", file=self.stream, flush=True)


def _width() -> int:
    import shutil

    return shutil.get_terminal_size((100, 20)).columns


def _duration(seconds: float) -> str:
    seconds = int(seconds)
    return f"{seconds // 60} min {seconds % 60:02d} s" if seconds >= 60 else f"{seconds} s"


def cmd_add_many(arguments: list[str], args: argparse.Namespace, settings: Settings, open_library) -> int:
    from paperdesk.core.commands.batch_add import BatchReport, add_many, expand
    from paperdesk.core.sources.arxiv import ArxivClient

    sources, skipped = expand(arguments)
    report = BatchReport(skipped=skipped)
    library = open_library(settings)
    client = None if settings["offline"] else ArxivClient.from_settings(settings)
    line = BatchLine()
    if client is not None:
        client.on_wait = ProgressLine().countdown
    try:
        add_many(library, sources, client, on_progress=line, report=report)
    except KeyboardInterrupt:  # between two papers: what was added stays
        report.stopped = True
    finally:
        line.close()
        library.close()
    if args.json:
        print_json(report.to_json())
    else:
        for source, why in report.skipped:
            print(f"skipped {source}: {why}")
        for source, why in report.failed:
            print(f"failed {source}: {why}")
        print(report.summary())
    return 1 if report.failed or report.stopped else 0
