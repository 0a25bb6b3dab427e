"""Command lines -> Command: parsing and completion over the registry's declarations.

The commands themselves (names, argument kinds, usage, help) are declared once
in `registry.py`. Whether a command may run *now* is the workflow's business
(`workflow.py`); this module only says what a well-formed command line is.
"""

from __future__ import annotations

import difflib
import re
import shlex
from pathlib import Path
from dataclasses import dataclass

from paperdesk.core.errors import PaperdeskError
from paperdesk.core.ids import is_local_id, looks_like_arxiv
from paperdesk.core.commands.registry import ALIASES as _ALIASES
from paperdesk.core.commands.registry import COMMANDS, SPECS, Arg, CommandSpec

__all__ = ["COMMANDS", "SPECS", "Arg", "CommandSpec", "Command", "CommandError", "Ref", "parse", "parse_ref",
           "canonical_name", "suggest", "command_names"]


class CommandError(PaperdeskError):
    """A malformed command line: unknown name, missing or bad argument."""


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

    def __str__(self) -> str:
        return self.raw or self.name


def canonical_name(word: str) -> str | None:
    word = word.lower().removeprefix(":")  # `:status` is the command status (the colon is ignored), not a message
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
    if raw.startswith(":"):  # vim's habit (`:status`): the colon is accepted and ignored
        raw = raw[1:].lstrip()
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
    if spec.arg is Arg.SOURCE:  # one word: "add a note that ..." is a message, not a file called "a note that"
        parts = _split(rest, name)
        if len(parts) != 1:
            raise CommandError(f"{name} takes one PDF path, arXiv id or URL, or a folder; quote a path with spaces "
                               f"(usage: {spec.usage})")
        if name == "add" and is_folder(parts[0]):  # a folder: every PDF under it, no draft
            return Command("import", text=f"folder {parts[0]}", raw=raw)
        return Command(name, text=parts[0], raw=raw)
    if spec.arg is Arg.PAGE:
        return _page_and_filters(name, rest, raw)
    parts = _split(rest, name)
    external = name == "open" and "--external" in parts  # open in the system's PDF viewer
    parts = [p for p in parts if not (external and p == "--external")]
    if not parts:
        raise CommandError(f"{name} needs a result number or a paper id (usage: {spec.usage})")
    max_parts = 2 if spec.arg is Arg.REF_PAGE else 1
    if len(parts) > max_parts:
        raise CommandError(f"{name}: too many arguments {rest!r} (usage: {spec.usage})")
    ref = parse_ref(parts[0], name)
    page = _positive(parts[1], name, "page") if len(parts) == 2 else None
    return Command(name, text="--external" if external else "", ref=ref, page=page, raw=raw)


def is_folder(text: str) -> bool:
    """`text` names an existing folder (False for any name the file system refuses)."""
    try:
        return Path(text).expanduser().is_dir()
    except (OSError, ValueError):  # a name too long for the file system, a NUL: not a folder
        return False


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


LARGEST = 1_000_000_000


def _positive(text: str, command: str, what: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise CommandError(f"{command}: {what} must be a whole number, got {text!r}") from None
    if value < 1:
        raise CommandError(f"{command}: {what} starts at 1, got {value}")
    if value > LARGEST:  # larger than any page or list: refused here, before SQLite's 64-bit integers overflow
        raise CommandError(f"{command}: {what} {value if value < 10**30 else 'given'} is too large (at most {LARGEST})")
    return value


def _page_and_filters(name: str, rest: str, raw: str) -> Command:
    """`list [words] [--tag ...] [--page N]`: the page in `page`, the filter options (checked here) in `text`."""
    from paperdesk.core.errors import InvalidArgumentError
    from paperdesk.core.commands.list_options import parse_list_options

    try:
        page, options = parse_list_options(rest)
    except InvalidArgumentError as exc:
        raise CommandError(str(exc)) from None
    return Command(name, text=rest if options.active else "", page=page or 1, raw=raw)


def command_names() -> list[str]:
    """Every command name and alias, for completion."""
    return [c.name for c in COMMANDS] + list(_ALIASES)
