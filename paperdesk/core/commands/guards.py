"""Guards of the command rules: side-effect free tests, each with its own refusal text.

A guard reads the `WorkflowContext` (and, for some, a command's own facts passed
as keyword arguments, e.g. `downloaded=`), never changes anything, and says
in its own words why a command cannot run now and what would enable it.
"""

from __future__ import annotations

import inspect
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Callable

if TYPE_CHECKING:
    from paperdesk.core.commands.workflow import WorkflowContext


@dataclass(frozen=True)
class Guard:
    name: str  # the method name on the generated state machine
    test: Callable[..., bool]  # (context, **facts) -> may run now
    refusal: Callable[["WorkflowContext"], str]  # (context) -> why not, and what would enable it

    def passes(self, context: "WorkflowContext", facts: dict[str, Any]) -> bool:
        accepted = inspect.signature(self.test).parameters
        return bool(self.test(context, **{k: v for k, v in facts.items() if k in accepted}))


def _offline(context: "WorkflowContext") -> str:
    return f"offline ({context.offline_reason() or 'offline'})"


def _online(context: "WorkflowContext") -> bool:
    return context.offline_reason() is None


def _model_reachable(context: "WorkflowContext") -> bool:
    return not (context.remote_model and not _online(context))


def _fetchable(context: "WorkflowContext", downloaded: bool | None = None) -> bool:
    """A paper can be summarized: online, or it is already in the library."""
    if _online(context):
        return True
    return bool(downloaded) if downloaded is not None else any(context.downloaded)


def _unsummarized(context: "WorkflowContext", summarized: bool | None = None) -> bool:
    """A library paper may get a first summary here: it has no saved (final) one."""
    return not summarized


def _source_reachable(context: "WorkflowContext", local: bool | None = None) -> bool:
    """`add` can reach its source: a local file always, an arXiv id or URL only online."""
    return bool(local) or _online(context)


ONLINE = Guard("online", _online, lambda c: f"{_offline(c)}: search your library with sem-search <query>, "
                                            "or go online and try again")
MODEL_REACHABLE = Guard("model_reachable", _model_reachable,
                        lambda c: f"{_offline(c)}: the model is a remote endpoint (llm.backend = remote); "
                                  "set llm.backend = local to use the local model")
FETCHABLE = Guard("fetchable", _fetchable,
                  lambda c: f"{_offline(c)}: that paper is not downloaded yet; pick one that is already in the "
                            "library, or go online")
UNSUMMARIZED = Guard("unsummarized", _unsummarized,
                     lambda c: "here: that paper already has a saved summary; summary <n> shows it")
SOURCE_REACHABLE = Guard("source_reachable", _source_reachable,
                         lambda c: f"{_offline(c)}: downloading needs arXiv; add a local PDF file instead, "
                                   "or go online")

# Guards of the plan-review commands; they read the plan facts the Desk keeps on the context.
def _plan_online(context: "WorkflowContext") -> bool:
    return _online(context) or not context.plan_network


REVISION_PENDING = Guard("revision_pending", lambda c: c.plan_pending,
                         lambda c: "now: no revision is pending; revise <feedback> proposes one")
NO_REVISION_PENDING = Guard("no_revision_pending", lambda c: not c.plan_pending,
                            lambda c: "now: a revision is pending; accept or reject it first (accept, reject)")
PLAN_VALID = Guard("plan_valid", lambda c: not c.plan_problem,
                   lambda c: f"now: the plan is invalid ({c.plan_problem}); fix it with step edit|drop or plan edit")
PLAN_ONLINE = Guard("plan_online", _plan_online,
                    lambda c: f"{_offline(c)}: step {', '.join(map(str, c.plan_network))} needs the network; "
                              f"drop it (step drop {c.plan_network[0] if c.plan_network else 'N'}) or go online")
# A research report under review keeps its papers as the results (summary <n>, open <n>) until it is kept.
REPORT_SAVED = Guard("report_saved", lambda c: c.report_saved,
                     lambda c: "now: the report's papers are the current results (summary <n>, open <n>); "
                               "save [name] keeps the report, then list works (find or sem-search leave it too)")
GUARDS: tuple[Guard, ...] = (ONLINE, MODEL_REACHABLE, FETCHABLE, UNSUMMARIZED, SOURCE_REACHABLE, REVISION_PENDING,
                             NO_REVISION_PENDING, PLAN_VALID, PLAN_ONLINE, REPORT_SAVED)
