"""The commands the dispatcher may delegate to, as an input rather than an import.

The dispatcher only needs each command's name and the kind of argument it
takes; it must not depend on how the registry behind the faces is built.
`from_registry()` (the default) reads the commands the registry marks
delegable, with their argument kinds; `from_commands_module()` (every
command, delegable or not) is kept for the labelled dev set's tools.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable

# Argument kinds the dispatcher knows how to fill.
NONE, QUERY, TEXT, REF, REF_PAGE, PAGE, TOPIC = "none", "query", "text", "ref", "ref-page", "page", "topic"


@dataclass(frozen=True)
class CommandInfo:
    name: str
    arg: str  # one of the kinds above
    aliases: tuple[str, ...] = ()


class CommandCatalog:
    """Names (and aliases) -> CommandInfo; `word()` answers "does this line start with a command?"."""

    def __init__(self, commands: Iterable[CommandInfo]) -> None:
        self.commands = {c.name: c for c in commands}
        self._words = {w: c for c in self.commands.values() for w in (c.name, *c.aliases)}

    def __contains__(self, name: str) -> bool:
        return name in self.commands

    def get(self, name: str) -> CommandInfo | None:
        return self.commands.get(name)

    def word(self, word: str) -> CommandInfo | None:
        return self._words.get(word.lower())

    def names(self) -> list[str]:
        return list(self.commands)


def from_registry() -> CommandCatalog:
    """What free text may run: the registry's delegable commands, and its read-only ones (`ask status`)."""
    from paperdesk.core.commands.registry import SPECS, delegable_commands, readonly_commands

    names = dict.fromkeys([*delegable_commands(), *readonly_commands()])
    return CommandCatalog(CommandInfo(name, SPECS[name].arg.value, tuple(SPECS[name].aliases)) for name in names)


def from_commands_module() -> CommandCatalog:
    """The catalog of today's `paperdesk.core.commands.parse.COMMANDS` (the integrator swaps in the registry)."""
    from paperdesk.core.commands.parse import COMMANDS

    return CommandCatalog(CommandInfo(c.name, c.arg.value, tuple(c.aliases)) for c in COMMANDS)
