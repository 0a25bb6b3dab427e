"""Talk to the desk: the free-text dispatcher and the question router (issue 15), headless.

Wiring for a face (after the command registry lands):

    dispatcher = Dispatcher(embedder, catalog, library_refs, backend=None)
    decision = dispatcher.decide(line, context)   # context: DispatchContext (see context.py helpers)
    decision.line()                                # "-> find table extraction (delegate, 0.93)"

`Dialogue` keeps the messages and replies since the last act.
"""

from paperdesk.core.dispatch.catalog import CommandCatalog, CommandInfo, from_commands_module
from paperdesk.core.dispatch.dialogue import Dialogue, Turn
from paperdesk.core.dispatch.dispatcher import Dispatcher
from paperdesk.core.dispatch.types import ACTIONS, ROUTES, Citation, Decision, DispatchContext, PaperRef

__all__ = [
    "ACTIONS", "ROUTES", "Citation", "CommandCatalog", "CommandInfo", "Decision", "Dialogue", "DispatchContext",
    "Dispatcher", "PaperRef", "Turn", "from_commands_module",
]
