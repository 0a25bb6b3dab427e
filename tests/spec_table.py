"""The command table of shared/spec/workflow.md, copied by hand (never generated from the model).

command -> {state where it is allowed: (next state when it finds something, next state when it finds nothing)};
None as a next state means "the same state".
"""

ALL = frozenset({"initial", "select-new", "draft-summary", "summarized", "select-view", "draft-sem-search",
                 "draft-research", "draft-plan", "draft-discussion"})
ANY_STAR = ALL - {"draft-summary"}
DRAFT_STATES = ("draft-summary", "summarized", "draft-sem-search", "draft-research", "draft-discussion")
VIEW_STATES = ("select-view", "draft-sem-search", "draft-research", "draft-discussion")
# "Extensions beyond the seed": PAPER-STATES = where a paper can be named
PAPER_STATES = ("summarized", "select-view", "draft-sem-search", "draft-research", "draft-discussion")

SPEC_TABLE: dict[str, dict[str, tuple[str | None, str | None]]] = {
    "find": {s: ("select-new", "initial") for s in ANY_STAR},
    "summarize": {"select-new": ("draft-summary", "draft-summary")},
    "improve": {s: (None, None) for s in DRAFT_STATES},
    "notes": {s: (None, None) for s in ("draft-summary", "summarized")},
    "save": {"draft-summary": ("summarized", "summarized"), "draft-sem-search": (None, None),
             "draft-research": (None, None), "draft-discussion": (None, None)},
    "abandon": {"draft-summary": ("initial", "initial"), "draft-plan": ("initial", "initial")},
    "sem-search": {s: ("draft-sem-search", "initial") for s in ANY_STAR},
    "research": {s: ("draft-research", "initial") for s in ANY_STAR},
    "list": {s: ("select-view", "initial") for s in ANY_STAR - {"draft-research"}},
    "summary": {s: (None, None) for s in VIEW_STATES},
    "open": {s: (None, None) for s in VIEW_STATES},
    # the spec's planned extension: undo / redo over draft revisions in any draft state
    "undo": {s: (None, None) for s in DRAFT_STATES},
    "redo": {s: (None, None) for s in DRAFT_STATES},
    **{c: {s: (None, None) for s in ALL} for c in ("help", "status", "history", "clear", "quit")},
    # "Extensions beyond the seed": dialogue | ANY | shows the current dialogue | same
    "dialogue": {s: (None, None) for s in ALL},
    # "Extensions beyond the seed": research plans. research in plan mode and
    # research --resume are in PLAN_RESEARCH below (their target depends on the mode / what is resumed).
    "mode": {s: (None, None) for s in ALL},
    "plan": {s: (None, None) for s in ("draft-plan", "draft-research")},
    "revise": {"draft-plan": (None, None)},
    "accept": {"draft-plan": (None, None)},  # guard: a revision is pending
    "reject": {"draft-plan": (None, None)},  # guard: a revision is pending
    "step": {"draft-plan": (None, None)},  # guard: no revision pending
    "build": {"draft-plan": ("draft-research", "initial")},  # guards: plan valid, no revision pending, online
    # Extensions: papers in and out and library upkeep never change the state; export and
    # tag/untag run anywhere, import and remove everywhere but draft-summary (ANY*)
    "export": {s: (None, None) for s in ALL},
    "import": {s: (None, None) for s in ANY_STAR},
    "remove": {s: (None, None) for s in ANY_STAR},
    "tag": {s: (None, None) for s in ALL},
    "untag": {s: (None, None) for s in ALL},
    # "Extensions beyond the seed": add, close, and the wider summarize and notes rows
    "add": {s: ("draft-summary", "draft-summary") for s in ANY_STAR},
    "close": {s: ("initial", "initial") for s in ANY_STAR},
    # free text, or `ask <message>` | ANY | goes to the dispatcher | as the delegated command
    # (`ask` itself changes nothing: the command it is understood as moves the state, under its own row)
    "ask": {s: (None, None) for s in ALL},
    # "Extensions beyond the seed":
    # discuss [<n|id>] [--turns N] [--every K] | PAPER-STATES | discussion + annotated summary | draft-discussion
    "discuss": {s: ("draft-discussion", "draft-discussion") for s in PAPER_STATES},
    # memory [query] | ANY | shows memory-graph nodes | same
    "memory": {s: (None, None) for s in ALL},
    # improve / save / undo / redo in draft-discussion (DRAFT_STATES, save above); summary / open (VIEW_STATES)
}
# summarize <n|id> (library paper) | select-view, guard: no saved summary | draft-summary
SPEC_TABLE["summarize"]["select-view"] = ("draft-summary", "draft-summary")
# notes [text] (viewing) | PAPER-STATES | same
SPEC_TABLE["notes"].update({s: (None, None) for s in PAPER_STATES})
# list | ANY* except draft-research; in draft-research once the report is saved (guard), so a saved report
# leaves the user where list works, as a saved summary does
SPEC_TABLE["list"]["draft-research"] = ("select-view", "initial")
# the facts a cell needs for the guards of the spec's row to pass (sent to WorkflowContext).
GUARD_FACTS: dict[str, dict[str, object]] = {"accept": {"plan_pending": True}, "reject": {"plan_pending": True},
                                             "list": {"report_saved": True}}
# research <query> in mode plan, and research --resume reopening an unbuilt plan: ANY* -> draft-plan
PLAN_RESEARCH = {s: "draft-plan" for s in ANY_STAR}
