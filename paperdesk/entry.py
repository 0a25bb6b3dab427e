"""The `paperdesk` command: the CLI's verbs, and `paperdesk bench` above them.

The benchmarks drive the CLI in-process (fault trials run its verbs), so they sit above it: the CLI parses
and runs them as an extension it is handed here, and never imports them.
"""

from __future__ import annotations

import argparse

from paperdesk import cli
from paperdesk.bench.arguments import add_parser as add_bench
from paperdesk.core.config import Settings


def _run_bench(args: argparse.Namespace, settings: Settings) -> int:
    from paperdesk.bench import run_bench

    return run_bench(args, settings)


def main(argv: list[str] | None = None) -> int:
    return cli.main(argv, extensions={"bench": (add_bench, _run_bench)})
