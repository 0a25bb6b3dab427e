"""Benchmarks behind `paperdesk bench ...`: they print figures, never assert."""

from __future__ import annotations

import argparse

from paperdesk.core.config import Settings


def run_bench(args: argparse.Namespace, settings: Settings) -> int:
    if args.bench == "retrieval":
        from paperdesk.bench.retrieval import run
    elif args.bench == "summarize":
        from paperdesk.bench.summarize_speed import run
    elif args.bench == "summaries":
        from paperdesk.bench.summaries_check import run
    elif args.bench == "llm" and args.model:
        from paperdesk.bench.llm_levers import run
    elif args.bench == "llm":
        from paperdesk.bench.llm_speed import run
    elif args.bench == "startup":
        from paperdesk.bench.startup import run
    elif args.bench == "route":
        from paperdesk.bench.route import run
    elif args.bench == "memory":
        from paperdesk.bench.memory_search import run
    elif args.bench == "discuss":
        from paperdesk.bench.discuss_speed import run
    elif args.bench == "plan":
        from paperdesk.bench.research_plan import run
    elif args.bench == "research" and getattr(args, "papers_more", False):
        from paperdesk.bench.research_quality import run
    elif args.bench == "research":
        from paperdesk.bench.research_run import run
    elif args.bench == "faults":
        from paperdesk.bench.faults import run
    elif args.bench == "qa":
        from paperdesk.bench.qa import run
    elif args.bench == "import":
        from paperdesk.bench.import_speed import run
    elif args.bench == "keys":
        from paperdesk.bench.key_latency import run
    elif args.bench == "search":
        from paperdesk.bench.search_latency import run
    else:
        from paperdesk.bench.ingest_speed import run
    return run(args, settings)
