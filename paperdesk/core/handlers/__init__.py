"""One handler per command: `handler(desk, command) -> Outcome`, run after the workflow allowed it.

Which function handles which command is declared in the registry
(`CommandSpec.handler`); this table is derived from it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Callable

from paperdesk.core.commands.registry import COMMANDS, handler

if TYPE_CHECKING:
    from paperdesk.core.commands.parse import Command
    from paperdesk.core.desk.desk import Desk
    from paperdesk.core.commands.views import Outcome

HANDLERS: dict[str, Callable[["Desk", "Command"], "Outcome"]] = {c.name: handler(c.name) for c in COMMANDS}
