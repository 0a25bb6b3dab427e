"""`paperdesk summarize|improve|undo|redo`: summaries with page citations, headless."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from paperdesk.cli_common import print_json
from paperdesk.console import stream_shows
from paperdesk.core.config import Settings
from paperdesk.core.agents.summarizer import Summarizer
from paperdesk.core.errors import PaperdeskError
from paperdesk.core.library.library import Library
from paperdesk.core.llm.factory import make_backend
from paperdesk.core.sources.arxiv import ArxivClient
from paperdesk.core.db.store import Paper, SummaryRevision
from paperdesk.core.progress import counted


def _paper(library: Library, ref: str, settings: Settings) -> Paper:
    """A library paper, adding a local file or an arXiv paper first when needed."""
    if Path(ref).is_file():  # as `add` does: a file named like an arXiv id is that paper
        from paperdesk.core.commands.paper_sources import add_source, file_source

        client = None if settings["offline"] else ArxivClient.from_settings(settings)
        return add_source(library, file_source(Path(ref)), client).paper
    try:
        return library.get(ref)
    except PaperdeskError:
        if settings["offline"]:
            raise
        from paperdesk.core.ids import looks_like_arxiv

        if not looks_like_arxiv(ref):
            raise
        return library.add_arxiv(ref, ArxivClient.from_settings(settings)).paper


def _stream(args: argparse.Namespace, into: list[str] | None = None):
    """Tokens to stdout as they come (none with --json); `into` keeps what was shown."""
    if args.json:
        return None

    def write(text: str) -> None:
        if into is not None:
            into.append(text)
        sys.stdout.write(text)
        sys.stdout.flush()

    return write


def _print_revision(args: argparse.Namespace, revision: SummaryRevision) -> None:
    if args.json:
        print_json({"text": revision.text, "revision": revision.revision, "status": revision.status})
    else:
        print(revision.text)


def _finish(args: argparse.Namespace, result) -> int:
    if args.json:
        print_json(result.to_json())
    elif result.unchanged:
        print(f"\n\n[{result.unchanged}]", file=sys.stderr)
    else:
        state = "interrupted" if result.cancelled else result.revision.status
        g = result.grounding
        # What was streamed is what passed the gate, sentence by sentence: the stored revision itself.
        print(f"\n\n[revision {result.revision.revision}, {state}; "
              f"{counted(len(result.citations), 'page citation')} checked"
              + (f", {len(result.removed_citations)} unsupported removed" if result.removed_citations else "")
              + (f"; {g.cited} of {g.sentences} sentences cited" if g.sentences else "")
              + (f"; {counted(g.generated - g.kept, 'unsupported sentence')} not shown" if g.generated > g.kept else "")
              + (f"; quoted from the paper: {', '.join(g.extractive_sections)}" if g.extractive_sections else "")
              + "]", file=sys.stderr)
    return 0


def cmd_summarize(args: argparse.Namespace, settings: Settings) -> int:
    library = Library(settings)
    paper = _paper(library, args.id, settings)
    if args.print:
        current = library.store.current_revision(paper.id)
        if current is None:
            raise PaperdeskError(f"{paper.id} has no summary yet; run `paperdesk summarize {paper.id}`")
        _print_revision(args, current)
        return 0
    summarizer = Summarizer.from_settings(library.store, make_backend(settings), settings, library.embedder)
    return _finish(args, summarizer.summarize(paper.id, on_token=_stream(args)))


def cmd_improve(args: argparse.Namespace, settings: Settings) -> int:
    library = Library(settings)
    paper = library.get(args.id)
    feedback = " ".join(args.feedback)
    sources = library.passages(feedback, k=3, papers=[paper.id])
    summarizer = Summarizer.from_settings(library.store, make_backend(settings), settings, library.embedder)
    return _finish(args, summarizer.improve(paper.id, feedback, sources, on_token=_stream(args)))


def _move(args: argparse.Namespace, settings: Settings, step: int) -> int:
    library = Library(settings)
    paper = library.get(args.id)
    revision = library.store.move_revision(paper.id, step)
    if revision is None:
        raise PaperdeskError(f"nothing to {'undo' if step < 0 else 'redo'} for {paper.id}")
    _print_revision(args, revision)
    if not args.json:
        print(f"[now at revision {revision.revision}]", file=sys.stderr)
    return 0


def cmd_undo(args: argparse.Namespace, settings: Settings) -> int:
    return _move(args, settings, -1)


def cmd_redo(args: argparse.Namespace, settings: Settings) -> int:
    return _move(args, settings, +1)


def cmd_ask(args: argparse.Namespace, settings: Settings) -> int:
    from paperdesk.core.agents.answer import answer, answer_options
    from paperdesk.core.agents.answer_result import UNSURE
    from paperdesk.core.llm.background_load import loading

    from paperdesk.cli_common import UsageError
    from paperdesk.core.library.library import MAX_K

    if not 1 <= args.k <= MAX_K:
        raise UsageError(f"ask: --k must be between 1 and {MAX_K}")
    library = Library(settings)
    question = " ".join(args.question).strip()
    if not question:
        raise PaperdeskError("ask needs a question, e.g. paperdesk ask how do readers track citations")
    memory = None
    if settings["memory.recall"]:
        from paperdesk.core.memory import MemoryGraph

        memory = MemoryGraph.for_library(library)
    streamed: list[str] = []
    backend = make_backend(settings)
    with loading(backend):  # the model loads while the passages are found and read
        result = answer(library, backend, question, k=args.k, on_token=_stream(args, streamed),
                        max_tokens=settings["answer.max_tokens"], memory=memory, recall_k=settings["memory.recall"],
                        **answer_options(settings),
                        note=None if args.json else lambda p: print(f"\n({p.stage})", file=sys.stderr, flush=True))
    if args.json:
        print_json(result.to_json())
        return 0
    print()
    if streamed and not result.cancelled and not stream_shows(result.text, "".join(streamed)):
        # the checks changed the answer after it streamed (a sentence dropped, a citation moved): what stands
        print(f"\nchecked: {result.text}")
    if result.unsure and not result.cancelled:
        print(f"\n{UNSURE}")
    for c in result.citations:
        title = next((h.title for h in result.hits if h.chunk_id == c["chunk_id"]), "")
        via = f" ({c['via']})" if c.get("via") else ""
        print(f"[{c['n']}] {title} ({c['paper_id']}, p. {c['page']}){via}: {c['quote'][:160]}")
    if result.hits and not result.citations:
        print("(the model cited no source; the passages searched were:)")
        for n, h in enumerate(result.hits, start=1):
            print(f"[{n}] {h.title} ({h.paper_id}, p. {h.page_start})" + (f" ({h.via})" if h.via else ""))
    return 0
