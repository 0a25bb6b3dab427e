"""The command registry: one declaration per command, everything else derived from it.

Each `CommandSpec` says what a command is called, what argument it takes, its
help, where it may run and where it leads (its rules, with guards), what would
enable it when the state does not allow it, which handler runs it, and in
which states it is what Enter does on a result. The state machine's table
(workflow.py), the parser and completion (commands.py), help, the TUI palette
and command line, and the dispatcher's list of commands it may delegate to
all read this tuple; adding a command is one entry here plus its handler.

Handlers are named as "module:function" under paperdesk.core.handlers and
imported on first use: handlers pull in the agents (numpy, the model
plumbing), and the table must load without them.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass, field
from enum import Enum
from typing import TYPE_CHECKING, Callable

from paperdesk.core.commands.guards import (
    FETCHABLE, MODEL_REACHABLE, NO_REVISION_PENDING, ONLINE, PLAN_ONLINE, PLAN_VALID, REVISION_PENDING,
    REPORT_SAVED, SOURCE_REACHABLE, UNSUMMARIZED, Guard,
)
from paperdesk.core.commands.states import ANY, ANY_STAR, DRAFTS, PAPER_STATES, SAME, STATE_NAMES, VIEWERS

if TYPE_CHECKING:
    from paperdesk.core.commands.parse import Command
    from paperdesk.core.desk.desk import Desk
    from paperdesk.core.commands.views import Outcome

Handler = Callable[["Desk", "Command"], "Outcome"]


class Arg(Enum):
    """The kind of a command's argument (what parse() accepts, and whether the palette can run it as is)."""

    NONE = "none"
    QUERY = "query"  # required free text
    TEXT = "text"  # optional free text
    REF = "ref"  # required <n|id>
    REF_PAGE = "ref-page"  # <n|id> [page]
    PAGE = "page"  # [--page N]
    TOPIC = "topic"  # optional command name
    SOURCE = "source"  # one PDF path, arXiv id or URL (quoted when it has spaces)

    @property
    def needs_input(self) -> bool:
        """The command cannot run without words the user types."""
        return self in (Arg.QUERY, Arg.REF, Arg.REF_PAGE, Arg.SOURCE)

    @property
    def takes_paper(self) -> bool:
        """The argument is a result number or a paper id."""
        return self in (Arg.REF, Arg.REF_PAGE)


@dataclass(frozen=True)
class Rule:
    """One row of the command table: where a command may run and where it leads."""

    sources: tuple[str, ...]
    target: str = SAME  # a state name, or SAME
    if_empty: str | None = None  # the target when the command found nothing (sent with count=0)
    guards: tuple[Guard, ...] = ()
    when: str | None = None  # a fact (sent as when=True) that picks this rule over the command's others


@dataclass(frozen=True)
class CommandSpec:
    name: str
    arg: Arg
    usage: str
    summary: str
    rules: tuple[Rule, ...]
    handler: str  # "module:function" in paperdesk.core.handlers
    enable_hint: str = ""  # what would enable it in a state that does not allow it
    state_hints: dict[str, str] = field(default_factory=dict)  # a better hint for one refusing state
    aliases: tuple[str, ...] = ()
    enter_in: tuple[str, ...] = ()  # states where Enter on a result runs `<name> <n>`
    delegable: bool = False  # the dispatcher may run it for a free-text message
    # Read-only: it only shows something, so it answers at once while other work runs and never interrupts it.
    readonly: bool = False
    # It discards the user's text or papers: reached from free text it asks first, whatever the confidence.
    # `discards_only` narrows that to these first words of the argument (step: only `step drop`).
    discards: bool = False
    discards_only: tuple[str, ...] = ()

    @property
    def sources(self) -> tuple[str, ...]:
        return tuple(s for rule in self.rules for s in rule.sources)

    def rule_in(self, state: str) -> Rule | None:
        return next((rule for rule in self.rules if state in rule.sources), None)

    def hint_in(self, state: str) -> str:
        return self.state_hints.get(state) or self.enable_hint


_NO_DRAFT = "there is no draft; summarize a paper, or run sem-search <query> or research <query>"

COMMANDS: tuple[CommandSpec, ...] = (
    CommandSpec("find", Arg.QUERY, "find <query>", "search arXiv for papers to add",
                (Rule(ANY_STAR, "select-new", if_empty="initial", guards=(ONLINE,)),), "new_paper:find",
                delegable=True),
    CommandSpec("summarize", Arg.REF, "summarize <n|id>",
                "download, index and summarize a found paper, or summarize a library paper with no summary yet",
                (Rule(("select-new",), "draft-summary", guards=(FETCHABLE, MODEL_REACHABLE)),
                 # A library paper without a saved summary; abandon keeps the paper
                 Rule(("select-view",), "draft-summary", guards=(UNSUMMARIZED, MODEL_REACHABLE))),
                "new_paper:summarize",
                enable_hint="find papers first (find <query>), then summarize <n>; or list, then summarize <n> "
                            "a paper with no summary yet",
                enter_in=("select-new",), delegable=True),
    CommandSpec("improve", Arg.QUERY, "improve <feedback>", "write a new draft revision that follows your feedback",
                (Rule(DRAFTS, guards=(MODEL_REACHABLE,)),), "drafts:improve",
                enable_hint="summarize a paper first (summarize <n>), or run sem-search <query> or research <query>",
                delegable=True),
    CommandSpec("notes", Arg.TEXT, "notes [text]",
                "show the notes of the paper open in the reader (else the selected one), or append text to them",
                (Rule(("draft-summary", *PAPER_STATES)),), "new_paper:notes",
                enable_hint="notes belong to a paper: summarize <n>, list, or open <n> one first",
                delegable=True),
    CommandSpec("save", Arg.TEXT, "save [name]", "keep the draft: a final summary, or a named report",
                (Rule(("draft-summary",), "summarized"), Rule(("draft-sem-search", "draft-research", "draft-discussion"))),
                "drafts:save",
                enable_hint="there is no draft to save; summarize a paper, or run sem-search <query> or research <query>",
                state_hints={"summarized": "the summary is already saved; improve <feedback> writes a new revision"},
                delegable=True),
    CommandSpec("abandon", Arg.NONE, "abandon",
                "discard the draft summary (and the paper, if this summarize or add added it), or the plan under review",
                (Rule(("draft-summary",), "initial"), Rule(("draft-plan",), "initial")), "plans:abandon",
                enable_hint="abandon discards a draft summary or a plan under review and there is none; "
                            "summarize <n> or research <query> in plan mode starts one", delegable=True,
                discards=True),
    CommandSpec("sem-search", Arg.QUERY, "sem-search <query>", "hybrid search of the library with a cited answer",
                (Rule(ANY_STAR, "draft-sem-search", if_empty="initial", guards=(MODEL_REACHABLE,)),),
                "drafts:sem_search", delegable=True),
    CommandSpec("research", Arg.QUERY, "research <query> | --resume",
                "multi-step research: plan mode stops at the plan, agent/reader mode writes a cited report",
                (Rule(ANY_STAR, "draft-research", if_empty="initial", guards=(MODEL_REACHABLE,)),
                 Rule(ANY_STAR, "draft-plan", guards=(MODEL_REACHABLE,), when="planning")),
                "plans:research", delegable=True),
    CommandSpec("list", Arg.PAGE, "list [words] [--tag T] [--author A] [--year Y] [--sort added|year|title] [--page N]",
                "list the library (filtered, sorted), 20 papers a page",
                (Rule(tuple(s for s in ANY_STAR if s != "draft-research"), "select-view", if_empty="initial"),
                 # a research report under review keeps its papers as the results until it is saved
                 Rule(("draft-research",), "select-view", if_empty="initial", guards=(REPORT_SAVED,))),
                "viewing:list_papers",
                delegable=True),
    CommandSpec("summary", Arg.REF, "summary <n|id>", "show the summary of a listed paper",
                (Rule(VIEWERS),), "viewing:summary",
                enable_hint="list the library first (list), or run sem-search <query>", delegable=True),
    CommandSpec("open", Arg.REF_PAGE, "open <n|id> [page] [--external]",
                "read a paper's text, page by page (--external: in the system's PDF viewer)",
                (Rule(VIEWERS),), "viewing:open_paper",
                enable_hint="list the library first (list), or run sem-search <query>",
                enter_in=("select-view", "draft-sem-search", "draft-research", "draft-discussion"), delegable=True),
    # Extension planned by the spec: undo / redo over draft revisions.
    CommandSpec("undo", Arg.NONE, "undo", "go back one draft revision", (Rule(DRAFTS),), "drafts:undo",
                enable_hint=_NO_DRAFT, delegable=True, discards=True),
    CommandSpec("redo", Arg.NONE, "redo", "go forward one draft revision", (Rule(DRAFTS),), "drafts:redo",
                enable_hint=_NO_DRAFT, delegable=True, discards=True),
    CommandSpec("help", Arg.TOPIC, "help [command]", "list commands, enabled or not and why", (Rule(ANY),),
                "meta:help_", aliases=("?",), readonly=True),
    CommandSpec("status", Arg.NONE, "status", "show the workflow state, selection, results and draft",
                (Rule(ANY),), "meta:status", readonly=True),
    CommandSpec("history", Arg.NONE, "history", "show the commands of this conversation", (Rule(ANY),),
                "meta:history", readonly=True),
    CommandSpec("clear", Arg.NONE, "clear", "clear the conversation history (not the state)", (Rule(ANY),),
                "meta:clear", discards=True),
    # Extension (spec: "New commands"): the dialogue the dispatcher keeps since the last act.
    CommandSpec("dialogue", Arg.NONE, "dialogue", "show the current dialogue with the dispatcher",
                (Rule(ANY),), "meta:dialogue", readonly=True),
    # Papers in and out, library upkeep. They never change the state; export only reads,
    # import / remove / tag change the library, so they wait while a summary draft is under review (ANY*)
    # except tag/untag, which touch no paper's text and are harmless anywhere.
    CommandSpec("export", Arg.QUERY, "export bibtex [n|id ...|--all] [--out FILE] | export markdown summary|report",
                "write BibTeX for papers, or a summary/report as Markdown with references, to a file",
                (Rule(ANY),), "library_io:export_", readonly=True),
    CommandSpec("import", Arg.QUERY, "import bibtex <file.bib> | import zotero [dir]",
                "add the papers a BibTeX file or a Zotero library names (with Zotero's metadata, collections "
                "as tags, notes); lists what was skipped and why",
                (Rule(ANY_STAR),), "library_io:import_",
                enable_hint="finish the draft summary first (save or abandon), then import"),
    CommandSpec("remove", Arg.REF, "remove <n|id>", "delete a paper, its PDF, notes and index entries (asks first)",
                (Rule(ANY_STAR),), "library_io:remove",
                enable_hint="finish the draft summary first (save or abandon), then remove", discards=True),
    CommandSpec("tag", Arg.QUERY, "tag <n|id> <tag> [tag ...]", "tag a library paper (list --tag <tag> lists them)",
                (Rule(ANY),), "library_io:tag"),
    CommandSpec("untag", Arg.QUERY, "untag <n|id> <tag> [tag ...]", "take tags off a library paper",
                (Rule(ANY),), "library_io:untag", discards=True),
    # Papers in from anywhere, and a way back to initial from any state
    CommandSpec("add", Arg.SOURCE, "add <file|arXiv id|URL>",
                "copy or download a paper, index it and start its summary draft (abandon removes it again)",
                (Rule(ANY_STAR, "draft-summary", guards=(SOURCE_REACHABLE, MODEL_REACHABLE)),), "adding:add"),
    CommandSpec("close", Arg.NONE, "close", "leave the results, selection and draft for initial; all stays stored",
                (Rule(ANY_STAR, "initial"),), "adding:close"),
    # Research modes and plan review (spec "Extensions beyond the seed").
    CommandSpec("mode", Arg.TEXT, "mode [plan|agent|reader]",
                "research mode: plan (review the plan first), agent (run and act), reader (citations only)",
                (Rule(ANY),), "plans:mode"),
    CommandSpec("plan", Arg.TEXT, "plan [edit]", "show the research plan and a pending revision; plan edit edits it",
                (Rule(("draft-plan", "draft-research")),), "plans:plan_",
                enable_hint="there is no plan: mode plan, then research <query> makes one (research --resume "
                            "reopens a stored one)", readonly=True),
    CommandSpec("revise", Arg.QUERY, "revise <feedback>", "propose a plan revision from your feedback, shown as a diff",
                (Rule(("draft-plan",)),), "plans:revise",
                enable_hint="revise changes a plan under review: mode plan, then research <query>", delegable=True),
    CommandSpec("accept", Arg.NONE, "accept", "the pending plan revision becomes the plan",
                (Rule(("draft-plan",), guards=(REVISION_PENDING,)),), "plans:accept",
                enable_hint="accept takes a proposed plan revision: mode plan, research <query>, revise <feedback>"),
    CommandSpec("reject", Arg.NONE, "reject", "discard the pending plan revision; the previous plan stands",
                (Rule(("draft-plan",), guards=(REVISION_PENDING,)),), "plans:reject",
                enable_hint="reject discards a proposed plan revision: mode plan, research <query>, revise <feedback>",
                discards=True),
    CommandSpec("step", Arg.QUERY, "step add|drop|edit|move ...",
                "edit the plan: step add <tool> <text>, drop N, edit N field=value, move N M (validated)",
                (Rule(("draft-plan",), guards=(NO_REVISION_PENDING,)),), "plans:step",
                enable_hint="step edits a plan under review: mode plan, then research <query>",
                discards=True, discards_only=("drop",)),
    CommandSpec("build", Arg.NONE, "build", "run the plan's steps and write the cited report",
                (Rule(("draft-plan",), "draft-research", if_empty="initial",
                      guards=(MODEL_REACHABLE, PLAN_VALID, NO_REVISION_PENDING, PLAN_ONLINE)),), "plans:build",
                enable_hint="build runs a plan under review: mode plan, then research <query>"),
    # `ask <message>` hands a message to the dispatcher, like a line that is no command.
    CommandSpec("ask", Arg.QUERY, "ask <message>", "say what you want in your own words; the desk shows what it "
                "understood, then runs it", (Rule(ANY),), "meta:ask"),
    # Discuss a paper (student, teacher, observer) and the memory graph the agents keep.
    CommandSpec("discuss", Arg.TEXT, "discuss [<n|id>] [options]",
                "student/teacher/observer discussion, annotated summary (--turns N --every K --resume)",
                (Rule(PAPER_STATES, "draft-discussion", guards=(MODEL_REACHABLE,)),), "discussion:discuss",
                enable_hint="pick a paper first: list, then discuss <n> (or open <n> and discuss)",
                delegable=True),
    CommandSpec("memory", Arg.TEXT, "memory [query]",
                "search the memory graph the discussions keep (newest nodes without a query)",
                (Rule(ANY),), "discussion:memory", readonly=True, delegable=True),
    CommandSpec("quit", Arg.NONE, "quit", "leave paperdesk; a draft is kept and resumed next time", (Rule(ANY),),
                "meta:quit_", aliases=("exit",)),
)
SPECS: dict[str, CommandSpec] = {c.name: c for c in COMMANDS}
ALIASES: dict[str, str] = {alias: c.name for c in COMMANDS for alias in c.aliases}


def enter_command(state: str) -> str | None:
    """The command Enter runs on a result row in `state` (e.g. summarize in select-new), or None."""
    return next((c.name for c in COMMANDS if state in c.enter_in), None)


def delegable_commands() -> list[str]:
    """The commands the dispatcher may delegate a free-text message to."""
    return [c.name for c in COMMANDS if c.delegable]


def readonly_commands() -> list[str]:
    """Commands that only show something: they run at once while work runs and never interrupt it."""
    return [c.name for c in COMMANDS if c.readonly]


def discards(line: str) -> bool:
    """The command line would discard the user's text or papers (a draft, a revision, a paper, a plan step ...)."""
    word, _, rest = (line or "").strip().partition(" ")
    spec = SPECS.get(ALIASES.get(word.lower(), word.lower()))
    if spec is None or not spec.discards:
        return False
    return not spec.discards_only or rest.strip().split(" ", 1)[0].lower() in spec.discards_only


def paper_commands() -> list[str]:
    """Commands whose argument is a result number or a paper id (completion and the palette offer papers)."""
    return [c.name for c in COMMANDS if c.arg.takes_paper]


_handlers: dict[str, Handler] = {}


def handler(name: str) -> Handler:
    """The function that runs command `name`, imported on first use."""
    if name not in _handlers:
        module, _, function = SPECS[name].handler.partition(":")
        _handlers[name] = getattr(importlib.import_module(f"paperdesk.core.handlers.{module}"), function)
    return _handlers[name]


def check() -> list[str]:
    """Problems in the declarations (unknown states, an Enter command twice in a state); empty when sound."""
    problems = []
    for spec in COMMANDS:
        for rule in spec.rules:
            for state in (*rule.sources, rule.target, rule.if_empty or SAME):
                if state != SAME and state not in STATE_NAMES:
                    problems.append(f"{spec.name}: unknown state {state!r}")
        if not spec.rules:
            problems.append(f"{spec.name}: no rule says where it may run")
    for state in STATE_NAMES:
        entering = [c.name for c in COMMANDS if state in c.enter_in]
        if len(entering) > 1:
            problems.append(f"{state}: Enter runs both {' and '.join(entering)}")
    return problems
