"""`paperdesk route MESSAGE` / `--batch FILE`: what the dispatcher understood, without running it.

The context is the saved session (state, results, selection, reader, draft
citations, history, dialogue), as the TUI would see it on start. Models load
once per process, so a batch of messages costs one load.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from paperdesk.cli_common import UsageError, print_json
from paperdesk.core.config import Settings


def _dispatcher(settings: Settings, use_model: bool):
    from paperdesk.core.dispatch import Dispatcher, from_registry
    from paperdesk.core.search.embedder import Embedder

    embedder = Embedder.from_settings(settings)
    backend = None
    if use_model:
        from paperdesk.core.llm.factory import make_structure_backend

        backend, _name = make_structure_backend(settings)  # a router pick is short JSON: the structure model's
    return Dispatcher(embedder.phrases(), from_registry(), backend=backend)


def _context(settings: Settings):
    from paperdesk.core.dispatch.session_context import from_store
    from paperdesk.core.db.store import Store

    settings.home.mkdir(mode=0o700, parents=True, exist_ok=True)
    store = Store(settings.home / "library.sqlite")
    try:
        return from_store(store)
    finally:
        store.close()


def _messages(args: argparse.Namespace) -> list[str]:
    if args.batch and args.message:
        raise UsageError("paperdesk route: give a MESSAGE or --batch FILE, not both")
    if not args.batch:
        message = " ".join(args.message).strip()
        if not message:
            raise UsageError("paperdesk route: give a MESSAGE, or --batch FILE with one message per line")
        return [message]
    if args.batch == "-":
        text = sys.stdin.read()
    else:
        path = Path(args.batch)
        if not path.is_file():
            raise UsageError(f"paperdesk route: no such file {args.batch!r} (one message per line, or - for stdin)")
        text = path.read_text(encoding="utf-8", errors="replace")
    return [line.strip() for line in text.splitlines() if line.strip()]


def cmd_route(args: argparse.Namespace, settings: Settings) -> int:
    messages = _messages(args)
    context = _context(settings)
    dispatcher = _dispatcher(settings, args.model)
    for message in messages:
        decision = dispatcher.decide(message, context)
        data = {"message": message, **decision.to_json()}
        if args.json and args.batch:
            sys.stdout.write(json.dumps(data, ensure_ascii=False) + "\n")
        elif args.json:
            print_json(data)
        else:
            prefix = f"{message}\t" if args.batch else ""
            print(f"{prefix}{decision.line()}\n{'  ' if args.batch else ''}because: {decision.reason}")
    return 0
