"""`paperdesk discuss` and `paperdesk memory`: the discussion agents and the memory graph, headless."""

from __future__ import annotations

import argparse
import signal
import sys

from paperdesk.cli_common import UsageError, print_json
from paperdesk.core.config import Settings
from paperdesk.core.cancel import CancelToken
from paperdesk.core.discussion import Discussion, DiscussionResult, Event
from paperdesk.core.library.library import Library
from paperdesk.core.memory import Graph, MemoryGraph
from paperdesk.core.progress import counted


def cmd_discuss(args: argparse.Namespace, settings: Settings) -> int:
    from paperdesk.core.handlers.discussion import MAX_TURNS

    if not (1 <= args.turns <= MAX_TURNS and 1 <= args.every <= MAX_TURNS):
        raise UsageError(f"discuss: --turns and --every must be at least 1 and at most {MAX_TURNS}")
    if not args.id and not args.resume:
        raise UsageError("discuss: name a paper (library or arXiv id), or use --resume")
    from paperdesk.core.llm.factory import make_backend

    library = Library(settings)
    memory = MemoryGraph.for_library(library)
    arxiv = None
    if not settings["offline"]:
        from paperdesk.core.sources.arxiv import ArxivClient

        arxiv = ArxivClient.from_settings(settings)
    discussion = Discussion(library, make_backend(settings), memory, arxiv,
                            answer_tokens=min(settings["answer.max_tokens"], 100))
    cancel = CancelToken()
    previous = signal.signal(signal.SIGINT, lambda *_: cancel.cancel())  # Ctrl-C: stop, keep what is finished
    try:
        on_event = None if args.json else _printer()
        if args.resume:
            result = discussion.resume(None, on_event, cancel, paper_ref=args.id)
        else:
            result = discussion.run(args.id, args.turns, args.every, on_event, cancel)
    finally:
        signal.signal(signal.SIGINT, previous)
    return _finish(args, discussion, result)


def _finish(args: argparse.Namespace, discussion: Discussion, result: DiscussionResult) -> int:
    if args.json:
        print_json(result.to_json())
    elif result.status == "finished":
        print("\n" + discussion.markdown(result))
    if result.status == "interrupted":
        print(f"interrupted after turn {len(result.turns)} of {result.total}; "
              f"`paperdesk discuss --resume` continues discussion {result.id}", file=sys.stderr)
        return 130
    return 0


def _printer():  # type: ignore[no-untyped-def]
    def on_event(event: Event) -> None:
        out = sys.stdout
        if event.kind == "start":
            resumed = event.data.get("resumed_after")
            out.write(f"Discussion {event.discussion_id} of {event.data['title']}"
                      + (f" (resumed after turn {resumed})" if resumed else "") + "\n")
        elif event.kind == "question":
            out.write(f"\n[turn {event.turn}/{event.total}] Student: {event.text}\nTeacher: ")
        elif event.kind == "token":
            out.write(event.text)
        elif event.kind == "answer":
            out.write("\n")
        elif event.kind == "insight":
            out.write(f"Observer to student: {event.data['student']['text']}\n"
                      f"Observer to teacher: {event.data['teacher']['text']}\n")
        out.flush()

    return on_event


def cmd_memory(args: argparse.Namespace, settings: Settings) -> int:
    library = Library(settings)
    memory = MemoryGraph.for_library(library)
    words = [w for w in args.query if w.strip()]
    if words == ["export"]:
        graph = memory.export()
        if args.json:
            print_json(graph.to_json())
        else:
            _print_graph(graph, with_scores=False)
        return 0
    if args.k < 1:
        raise UsageError("memory: --k must be at least 1")
    graph = memory.search_nodes(" ".join(words), k=args.k)
    if args.json:
        print_json(graph.to_json())
        return 0
    if not graph.entities:
        print("the memory graph has no matching nodes" if words else
              "the memory graph is empty; `paperdesk discuss ID` fills it")
    _print_graph(graph, with_scores=bool(words))
    return 0


def _print_graph(graph: Graph, with_scores: bool) -> None:
    for n, e in enumerate(graph.entities, start=1):
        score = f" [{e.score:.4f}]" if with_scores and e.score is not None else ""
        print(f"{n:>3}. {e.name} ({e.type}){score}")
        for o in e.observations[:3]:
            source = f"  ({o.source})" if o.source else ""
            print(f"       - {_clip(o.text)}{source}")
        if len(e.observations) > 3:
            print(f"       ... {counted(len(e.observations) - 3, 'more observation')}")
    names = {e.name.lower() for e in graph.entities}
    shown = [r for r in graph.relations if r.source.lower() in names or r.target.lower() in names]
    if shown:
        print("relations:")
        for r in shown[:30]:
            print(f"  {r.source} --{r.type}--> {r.target}")


def _clip(text: str, limit: int = 160) -> str:
    words = " ".join(text.split())
    return words if len(words) <= limit else words[:limit].rsplit(" ", 1)[0] + " ..."
