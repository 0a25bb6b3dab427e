"""Command lines -> Command: names, arguments, usage and help text.

This is the one list of commands every face shows (shell, TUI command line,
palette, help). Whether a command may run *now* is the workflow's business
(`workflow.py`); this module only says what a well-formed command looks like.
"""

from __future__ import annotations

import difflib
import re
import shlex
from dataclasses import dataclass
from enum import Enum

from paperdesk.core.errors import PaperdeskError
from paperdesk.core.ids import is_local_id, looks_like_arxiv


class CommandError(PaperdeskError):
    """A malformed command line: unknown name, missing or bad argument."""


class Arg(Enum):
    NONE = "none"
    QUERY = "query"  # required free text
    TEXT = "text"  # optional free text
    REF = "ref"  # required <n|id>
    REF_PAGE = "ref-page"  # <n|id> [page]
    PAGE = "page"  # [--page N]
    TOPIC = "topic"  # optional command name


@dataclass(frozen=True)
class CommandSpec:
    name: str
    arg: Arg
    usage: str
    summary: str
    aliases: tuple[str, ...] = ()


COMMANDS: tuple[CommandSpec, ...] = (
    CommandSpec("find", Arg.QUERY, "find <query>", "search arXiv for papers to add"),
    CommandSpec("summarize", Arg.REF, "summarize <n|id>", "download, index and summarize a found paper"),
    CommandSpec("improve", Arg.QUERY, "improve <feedback>", "write a new draft revision that follows your feedback"),
    CommandSpec("notes", Arg.TEXT, "notes [text]", "show the selected paper's notes, or append text to them"),
    CommandSpec("save", Arg.TEXT, "save [name]", "keep the draft: a final summary, or a named report"),
    CommandSpec("abandon", Arg.NONE, "abandon", "discard the draft summary (and the paper, if this summarize added it)"),
    CommandSpec("sem-search", Arg.QUERY, "sem-search <query>", "hybrid search of the library with a cited answer"),
    CommandSpec("research", Arg.QUERY, "research <query>", "a cited research report from the library"),
    CommandSpec("list", Arg.PAGE, "list [--page N]", "list the library, 20 papers a page"),
    CommandSpec("summary", Arg.REF, "summary <n|id>", "show the summary of a listed paper"),
    CommandSpec("open", Arg.REF_PAGE, "open <n|id> [page]", "read a paper's text, page by page"),
    CommandSpec("undo", Arg.NONE, "undo", "go back one draft revision"),
    CommandSpec("redo", Arg.NONE, "redo", "go forward one draft revision"),
    CommandSpec("help", Arg.TOPIC, "help [command]", "list commands, enabled or not and why", ("?",)),
    CommandSpec("status", Arg.NONE, "status", "show the workflow state, selection, results and draft"),
    CommandSpec("history", Arg.NONE, "history", "show the commands of this conversation"),
    CommandSpec("clear", Arg.NONE, "clear", "clear the conversation history (not the state)"),
    CommandSpec("quit", Arg.NONE, "quit", "leave paperdesk; a draft is kept and resumed next time", ("exit",)),
)
SPECS: dict[str, CommandSpec] = {c.name: c for c in COMMANDS}
_ALIASES: dict[str, str] = {alias: c.name for c in COMMANDS for alias in c.aliases}


@dataclass(frozen=True)
class Ref:
    """A paper reference: a 1-based result number or a paper id."""

    number: int | None = None
    paper_id: str | None = None

    def __str__(self) -> str:
        return str(self.number) if self.number is not None else str(self.paper_id)


@dataclass(frozen=True)
class Command:
    name: str
    text: str = ""  # the query, feedback, notes text or save name
    ref: Ref | None = None
    page: int | None = None
    raw: str = ""

    @property
    def event(self) -> str:
        """The workflow event id for this command."""
        return event_id(self.name)

    def __str__(self) -> str:
        return self.raw or self.name


def event_id(name: str) -> str:
    return name.replace("-", "_")


def canonical_name(word: str) -> str | None:
    word = word.lower()
    if word in SPECS:
        return word
    return _ALIASES.get(word)


def suggest(word: str) -> str | None:
    names = [c.name for c in COMMANDS] + list(_ALIASES)
    close = difflib.get_close_matches(word.lower(), names, n=1, cutoff=0.6)
    return canonical_name(close[0]) if close else None


def parse(line: str) -> Command:
    """Parse one command line; CommandError says what is wrong and how to write it."""
    raw = line.strip()
    if not raw:
        raise CommandError("empty command; type help to see the commands")
    word, _, rest = raw.partition(" ")
    rest = rest.strip()
    name = canonical_name(word)
    if name is None:
        hint = suggest(word)
        maybe = f"did you mean {hint}? " if hint else ""
        raise CommandError(f"unknown command {word!r}; {maybe}type help to see the commands")
    spec = SPECS[name]
    if spec.arg is Arg.NONE:
        if rest:
            raise CommandError(f"{name} takes no argument (usage: {spec.usage})")
        return Command(name, raw=raw)
    if spec.arg is Arg.QUERY:
        if not rest:
            raise CommandError(f"{name} needs {spec.usage.split(' ', 1)[1]} (usage: {spec.usage})")
        return Command(name, text=rest, raw=raw)
    if spec.arg is Arg.TEXT:
        return Command(name, text=rest, raw=raw)
    if spec.arg is Arg.TOPIC:
        if rest and canonical_name(rest) is None:
            raise CommandError(f"help: no command {rest!r}; type help to see the commands")
        return Command(name, text=canonical_name(rest) or "" if rest else "", raw=raw)
    if spec.arg is Arg.PAGE:
        return Command(name, page=_page_option(name, rest, spec.usage), raw=raw)
    parts = _split(rest, name)
    if not parts:
        raise CommandError(f"{name} needs a result number or a paper id (usage: {spec.usage})")
    max_parts = 2 if spec.arg is Arg.REF_PAGE else 1
    if len(parts) > max_parts:
        raise CommandError(f"{name}: too many arguments {rest!r} (usage: {spec.usage})")
    ref = parse_ref(parts[0], name)
    page = _positive(parts[1], name, "page") if len(parts) == 2 else None
    return Command(name, ref=ref, page=page, raw=raw)


def parse_ref(text: str, command: str = "") -> Ref:
    """`3` -> result number 3; an arXiv id or a library id -> that paper."""
    text = text.strip()
    if re.fullmatch(r"\d{1,6}", text):
        return Ref(number=_positive(text, command, "result number"))
    if looks_like_arxiv(text) or is_local_id(text):
        return Ref(paper_id=text)
    prefix = f"{command}: " if command else ""
    raise CommandError(
        f"{prefix}{text!r} is neither a result number nor a paper id; "
        "use a number from the results (1, 2, ...) or an id like 2302.07302"
    )


def _split(rest: str, name: str) -> list[str]:
    try:
        return shlex.split(rest)
    except ValueError as exc:
        raise CommandError(f"{name}: {exc}") from None


def _positive(text: str, command: str, what: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise CommandError(f"{command}: {what} must be a whole number, got {text!r}") from None
    if value < 1:
        raise CommandError(f"{command}: {what} starts at 1, got {value}")
    return value


def _page_option(name: str, rest: str, usage: str) -> int:
    parts = _split(rest, name)
    if not parts:
        return 1
    if parts[0] == "--page" and len(parts) == 2:
        return _positive(parts[1], name, "page")
    if parts[0].startswith("--page=") and len(parts) == 1:
        return _positive(parts[0].split("=", 1)[1], name, "page")
    if len(parts) == 1 and parts[0].isdigit():
        return _positive(parts[0], name, "page")
    raise CommandError(f"{name}: unexpected {rest!r} (usage: {usage})")


def command_names() -> list[str]:
    """Every command name and alias, for completion."""
    return [c.name for c in COMMANDS] + list(_ALIASES)
