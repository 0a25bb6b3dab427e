"""The `paperdesk` command: the TUI with no verb, headless verbs otherwise.

User errors print one line to stderr and exit 1 (usage errors exit 2); no
tracebacks. Every verb takes --json for scripts.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any, Callable

from paperdesk.cli_common import Parser as _Parser
from paperdesk.cli_common import UsageError, print_json  # noqa: F401  (tests and scripts import them from here)
from paperdesk.core.config import Settings, load_settings
from paperdesk.core.errors import CancelledError, PaperdeskError

# An extension is a verb the CLI parses and runs without importing it: (add its parser, run it).
Extension = tuple[Callable[[Any], None], Callable[[argparse.Namespace, Settings], int]]


def build_parser(extensions: dict[str, Extension] | None = None) -> argparse.ArgumentParser:
    parser = _Parser(prog="paperdesk", description="A terminal workbench for research papers.")
    parser.add_argument("--home", help="data directory (overrides PAPERDESK_HOME)")
    parser.add_argument("--theme", help="TUI theme name")
    parser.add_argument("--offline", action="store_true", help="never touch the network")
    sub = parser.add_subparsers(dest="verb", parser_class=_Parser)

    def verb(name: str, help_text: str) -> argparse.ArgumentParser:
        p = sub.add_parser(name, help=help_text, description=help_text)
        p.add_argument("--json", action="store_true", help="machine-readable output")
        return p

    p = sub.add_parser("shell", help="the workflow as a line shell (reads a script from stdin when piped)",
                       description="Run workbench commands line by line: interactive on a terminal, "
                                   "or a script piped on stdin (exit 1 if a command is refused or fails).")
    p.add_argument("--keep-going", action="store_true", help="in a script, run on after a refused or failed command")
    p = verb("add", "add papers: arXiv ids or URLs, PDF files, and folders (every PDF under them)")
    p.add_argument("sources", nargs="+", metavar="source",
                   help="arXiv id or URL, a path to a PDF, or a folder; several in one run share the loaded models")
    p = verb("find", "search arXiv")
    p.add_argument("query", nargs="+")
    p.add_argument("--max", type=int, default=None, help="number of results")
    p = verb("search", "search the library (hybrid keyword + vector)")
    p.add_argument("query", nargs="+")
    p.add_argument("--paper", action="append", help="only this paper (repeat for several)")
    p.add_argument("--k", type=int, default=10)
    p.add_argument("--mode", choices=("hybrid", "keyword", "vector"))
    p = verb("list", "list the library")
    p.add_argument("--page", type=int, default=1)
    p.add_argument("words", nargs="*", help="words every listed title has")
    p.add_argument("--tag", help="only papers with this tag")
    p.add_argument("--author", help="only papers with an author whose name contains this")
    p.add_argument("--year", help="a year (2023) or a range (2020-2023)")
    p.add_argument("--sort", choices=("added", "year", "title"), default="added")
    p.add_argument("--reverse", action="store_true")
    p = verb("show", "show a paper, or one page of its text")
    p.add_argument("id")
    p.add_argument("--page", type=int)
    p = verb("remove", "remove a paper and its index entries")
    p.add_argument("id")
    from paperdesk.cli_models import add_parser as add_models

    add_models(sub, verb)
    p = verb("doctor", "check the install, the models, the library and the network; say what to fix")
    p.add_argument("--rebuild", action="store_true", help="rebuild a damaged or lost library.sqlite from the PDFs "
                   "in papers/ and lost+found/ (the damaged file is set aside, nothing is deleted)")
    verb("reindex", "rebuild the keyword index and the vector cache from the library's store")
    p = verb("config", "show where settings come from; --keys lists every setting with type, default and source")
    p.add_argument("--keys", action="store_true", help="list every setting")
    p = verb("summarize", "summarize a paper (library id, arXiv id or PDF file) with page citations")
    p.add_argument("id")
    p.add_argument("--print", action="store_true", help="print the current summary instead of writing one")
    p = verb("improve", "write a new summary revision that follows your feedback")
    p.add_argument("id")
    p.add_argument("feedback", nargs="+")
    p = verb("ask", "answer a question from the library, citing paper and page")
    p.add_argument("question", nargs="+")
    p.add_argument("--k", type=int, default=5)
    p = verb("route", "show what the dispatcher understands a free-text message as (nothing runs)")
    p.add_argument("message", nargs="*", help="the message, as typed in the TUI or shell")
    p.add_argument("--batch", metavar="FILE", help="one message per line (- for stdin); models load once")
    p.add_argument("--model", action="store_true", help="let the local model settle ambiguous messages")
    for name, text in (("undo", "go back one summary revision"), ("redo", "go forward one summary revision")):
        verb(name, text).add_argument("id")
    p = verb("discuss", "a student/teacher/observer discussion of a library paper, with an annotated summary")
    p.add_argument("id", nargs="?", help="library or arXiv id (with --resume: resume this paper's discussion)")
    p.add_argument("--turns", type=int, default=10, help="student/teacher turns (N)")
    p.add_argument("--every", type=int, default=3, help="the observer steps in every K turns")
    p.add_argument("--resume", action="store_true", help="continue the newest unfinished discussion")
    p = verb("memory", "search the memory graph (`memory export` prints it all)")
    p.add_argument("query", nargs="*", help="words to search for; none: the newest nodes; `export`: everything")
    p.add_argument("--k", type=int, default=10)

    from paperdesk.cli_research import add_parser as add_research

    add_research(sub)
    from paperdesk.cli_library_io import add_parser as add_library_io  # export, import, tag, untag

    add_library_io(sub)

    for add, _run_verb in (extensions or {}).values():
        add(sub)
    return parser


def _settings(args: argparse.Namespace) -> Settings:
    settings = load_settings()
    overrides: dict[str, Any] = {}
    if args.home:
        overrides["home"] = args.home
    if args.theme:
        overrides["theme"] = args.theme
    if args.offline:
        overrides["offline"] = True
    return settings.with_overrides(**overrides) if overrides else settings


def _clean_argv(argv: list[str]) -> list[str]:
    """Arguments with bytes that are not UTF-8 (surrogate-escaped by Python) replaced, and said so."""
    from paperdesk.console import clean_line

    out = []
    for arg in argv:
        fixed, warning = clean_line(arg)
        if warning:
            print(warning.replace("the line", "an argument"), file=sys.stderr)
        out.append(fixed)
    return out


def main(argv: list[str] | None = None, extensions: dict[str, Extension] | None = None) -> int:
    """Run one `paperdesk` command line; `extensions` adds verbs from above the CLI (paperdesk.entry adds bench)."""
    try:
        code = _run(argv, extensions or {})
        sys.stdout.flush()  # inside the try: a reader that went away (`| head`) is seen here, not at exit
        return code
    except BrokenPipeError:
        # Like a Unix tool killed by SIGPIPE: stop quietly. Point stdout at /dev/null so that the
        # interpreter's own flush at exit does not report the closed pipe again.
        import os

        try:
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, sys.stdout.fileno())
        except (OSError, ValueError):
            pass
        return 141


def _run(argv: list[str] | None, extensions: dict[str, Extension]) -> int:
    try:
        words = _clean_argv(sys.argv[1:] if argv is None else argv)
        if not words:  # the workbench, as `paperdesk` alone starts it: no verb's module is needed to parse nothing
            from paperdesk.tui.launch import run_tui

            return run_tui(load_settings())
        args = build_parser(extensions).parse_args(words)
        if args.verb is None:
            from paperdesk.tui.launch import run_tui

            return run_tui(_settings(args))
        settings = _settings(args)
        if args.verb not in ("shell", "bench"):  # the shell and the TUI show the library's notices themselves
            _say_library_notices()
        if args.verb == "shell":
            from paperdesk.shell import run_shell

            return run_shell(settings, keep_going=args.keep_going)
        if args.verb in extensions:
            return extensions[args.verb][1](args, settings)
        if args.verb == "config":
            from paperdesk import cli_config as verbs
        elif args.verb == "research":
            from paperdesk import cli_research as verbs  # type: ignore[no-redef]
        elif args.verb in ("summarize", "improve", "undo", "redo", "ask"):
            from paperdesk import cli_summary as verbs  # type: ignore[no-redef]
        elif args.verb in ("doctor", "reindex"):
            from paperdesk import doctor as verbs  # type: ignore[no-redef]
        elif args.verb == "models":
            from paperdesk import cli_models as verbs  # type: ignore[no-redef]
        elif args.verb == "route":
            from paperdesk import cli_route as verbs  # type: ignore[no-redef]
        elif args.verb in ("discuss", "memory"):
            from paperdesk import cli_discuss as verbs  # type: ignore[no-redef]
        elif args.verb in ("export", "import", "tag", "untag"):
            from paperdesk import cli_library_io as verbs  # type: ignore[no-redef]
        else:
            from paperdesk import cli_verbs as verbs
        handler: Callable[[argparse.Namespace, Settings], int] = getattr(verbs, f"cmd_{args.verb}")
        return handler(args, settings)
    except UsageError as exc:
        print(str(exc), file=sys.stderr)
        return 2
    except CancelledError:
        print("cancelled", file=sys.stderr)
        return 130
    except KeyboardInterrupt:
        print("interrupted; nothing half-written was kept", file=sys.stderr)
        return 130
    except PaperdeskError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    except BrokenPipeError:
        raise
    except Exception as exc:
        from paperdesk.core.db.diskspace import is_disk_full
        from paperdesk.core.errors import damaged_database

        damaged = damaged_database(exc)
        if damaged:
            print(f"error: {damaged}", file=sys.stderr)
            return 1
        if not is_disk_full(exc):
            raise
        print(f"error: the disk is full ({exc}); nothing half-written was kept: free some space and retry",
              file=sys.stderr)
        return 1


def _say_library_notices() -> None:
    """What opening the library did that the user must hear of, as `warning:` lines on stderr."""
    import logging

    class ToStderr(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:  # sys.stderr as it is now, not at import
            print(self.format(record), file=sys.stderr, flush=True)

    log = logging.getLogger("paperdesk.repair")
    if not any(type(h).__name__ == "ToStderr" for h in log.handlers):
        handler = ToStderr(logging.WARNING)
        handler.setFormatter(logging.Formatter("warning: %(message)s"))
        log.addHandler(handler)
