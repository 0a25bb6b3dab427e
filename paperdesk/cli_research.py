"""`paperdesk research QUESTION [--plan-only] [--mode M] [--json] [--resume [RUN]]`: multi-step research from the CLI.

The report streams to stdout as it is written; step progress goes to stderr.
Ctrl-C cancels the run within a fraction of a second and leaves it resumable
(`paperdesk research --resume [RUN]`; without RUN, the newest unfinished run).
`--mode` defaults to `agent`, the spec's default research mode (workflow.md: "mode ... default agent");
`--resume` keeps the mode the run was started in.
"""

from __future__ import annotations

import argparse
import signal
import sys
from typing import Any

from paperdesk.cli_common import UsageError, print_json
from paperdesk.core.config import Settings
from paperdesk.core.cancel import CancelToken
from paperdesk.core.errors import CancelledError, PaperdeskError

MAX_RUN = 2**63 - 1  # SQLite's largest row id
NEWEST = "newest"  # `--resume` given without a run number


def _run_number(text: str) -> int | str:
    """A run number; argparse also passes the bare `--resume` const through here, so NEWEST stays NEWEST."""
    if text == NEWEST:
        return NEWEST
    try:
        number = int(text)
    except ValueError:
        number = 0
    if not 1 <= number <= MAX_RUN:
        raise argparse.ArgumentTypeError(f"takes a run number (1 to {MAX_RUN}) or nothing (the newest unfinished "
                                         f"run), got {text[:40]!r}")
    return number


def add_parser(sub: Any) -> None:
    p = sub.add_parser("research", help="multi-step research: plan, run the steps, a cited report",
                       description="Plan the question as steps, run them over the library, write a cited report.")
    p.add_argument("question", nargs="*")
    p.add_argument("--plan-only", action="store_true", help="print the plan and stop")
    p.add_argument("--resume", type=_run_number, nargs="?", const=NEWEST, metavar="RUN",
                   help="finish a killed or cancelled run (no RUN: the newest unfinished one)")
    p.add_argument("--runs", action="store_true", help="list recent runs")
    p.add_argument("--json", action="store_true", help="machine-readable output")
    p.add_argument("--mode", choices=("plan", "agent", "reader"), default=None,
                   help="plan: print the plan and stop (like --plan-only); agent (default): run, then name the "
                        "most-cited page and arXiv finds to add; reader: the report with citations only "
                        "(--resume keeps the run's own mode)")


def _run_to_resume(researcher: Any, run: int | str) -> int:
    """The run number given, or the newest unfinished run (a clear error when there is none)."""
    if run != NEWEST:
        return int(run)
    unfinished = researcher.tracker.unfinished()
    if not unfinished:
        raise PaperdeskError("there is no unfinished research run to resume; `paperdesk research --runs` lists "
                             "the runs, `paperdesk research QUESTION` starts one")
    return unfinished[0].id


def cmd_research(args: argparse.Namespace, settings: Settings) -> int:
    question = " ".join(args.question).strip()
    if not question and args.resume is None and not args.runs:
        raise UsageError("research: give a question, --resume RUN or --runs "
                         "(--resume alone: the newest unfinished run)")
    from paperdesk.core.library.library import Library  # heavy (numpy, tantivy): only when the verb runs
    from paperdesk.core.research import Researcher, load_backends

    library = Library(settings)
    try:
        memory = None
        if settings["memory.recall"]:
            from paperdesk.core.memory import MemoryGraph

            memory = MemoryGraph.for_library(library)
        researcher = Researcher(library, load_backends(settings), memory=memory)
        if args.runs:
            return _runs(researcher, args.json)
        cancel = CancelToken()
        previous = signal.signal(signal.SIGINT, lambda *_: cancel.cancel())
        on_event = _printer(args.json)
        try:
            if args.resume is not None:
                run_id = _run_to_resume(researcher, args.resume)
                mode = args.mode or researcher.tracker.run(run_id).mode or "agent"  # the run's own mode
                result = researcher.resume(run_id, on_event, cancel)
            else:
                import time

                started = time.perf_counter()
                plan = researcher.plan(question, cancel=cancel)
                plan_s = time.perf_counter() - started
                mode = args.mode or "agent"
                if args.plan_only or mode == "plan":
                    return _print_plan(plan, args.json)
                if not args.json:
                    from paperdesk.core.research.plan_edit import describe

                    print(f"plan ({plan.made_by}):", file=sys.stderr)
                    for step in plan.steps:
                        print(f"  {describe(step)}", file=sys.stderr)
                result = researcher.run(plan, on_event, cancel, mode=mode)
                result.timings["plan_s"] = plan_s
                result.timings["total_s"] = time.perf_counter() - started
        except CancelledError:
            runs = researcher.tracker.unfinished()
            hint = f"; resume with: paperdesk research --resume {runs[0].id}" if runs else ""
            print(f"cancelled{hint}", file=sys.stderr)
            return 130
        finally:
            signal.signal(signal.SIGINT, previous)
        actions = _agent_actions(library, researcher, result) if mode == "agent" else None
        if args.json:
            print_json({**result.to_json(), **({"actions": actions} if actions is not None else {})})
        else:
            print(f"\nrun {result.run_id}: {result.timings.get('total_s', 0):.1f} s", file=sys.stderr)
            if actions:
                page = actions["open"]
                if page:
                    print(f"agent: most cited: {page['paper_id']} page {page['page']}: \"{page['highlight']}\"")
                for arxiv_id, title in actions["offers"]:
                    print(f"agent: new on arXiv: {arxiv_id} {title} (paperdesk add {arxiv_id})")
        return 0
    finally:
        library.close()


def _agent_actions(library: Any, researcher: Any, result: Any) -> dict[str, Any]:
    """Agent mode's actions as data: the most-cited page with its passage, and arXiv finds to add."""
    from paperdesk.core.research.agent_actions import arxiv_offers, cited_page

    page = cited_page(library.store, result.citations)
    opened = {"paper_id": page.paper_id, "page": page.page, "highlight": page.highlight} if page else None
    return {"open": opened, "offers": [list(o) for o in arxiv_offers(researcher.tracker, result)]}


def _printer(as_json: bool) -> Any:
    def on_event(event: Any) -> None:
        if event.kind == "answer_token":  # a sub-answer's words while it is written: the report streams below
            return
        if event.kind == "token":
            if not as_json:
                sys.stdout.write(event.text)
                sys.stdout.flush()
            return
        if as_json:
            return
        where = f"step {event.step_id}" if event.step_id is not None else "research"
        seconds = f" ({event.seconds:.1f} s)" if event.seconds is not None else ""
        print(f"{where}: {event.kind.replace('step_', '')} {event.message}{seconds}".rstrip(), file=sys.stderr)

    return on_event


def _print_plan(plan: Any, as_json: bool) -> int:
    from paperdesk.core.research.plan_edit import describe

    if as_json:
        print_json({"plan": plan.to_json()})
    else:
        print(f"plan for: {plan.query}  (made by {plan.made_by})")
        for step in plan.steps:
            print(f"  {describe(step)}")
            print(f"      {step.description}")
        for note in plan.notes:
            print(f"  note: {note}")
    return 0


def _runs(researcher: Any, as_json: bool) -> int:
    runs = researcher.tracker.runs()
    if as_json:
        print_json({"runs": [{"id": r.id, "query": r.query, "status": r.status, "made_by": r.made_by}
                             for r in runs]})
    else:
        for r in runs:
            print(f"{r.id:>4}  {r.status:<11} {r.query}")
        if not runs:
            print("no research runs yet")
    return 0
