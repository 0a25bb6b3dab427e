"""The command table of shared/spec/workflow.md, copied by hand (never generated from the model).

command -> {state where it is allowed: (next state when it finds something, next state when it finds nothing)};
None as a next state means "the same state".
"""

ALL = frozenset({"initial", "select-new", "draft-summary", "summarized", "select-view", "draft-sem-search",
                 "draft-research", "draft-discussion"})
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
    "abandon": {"draft-summary": ("initial", "initial")},
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
    # issue 16 (discuss16), "Extensions beyond the seed":
    # discuss [<n|id>] [--turns N] [--every K] | PAPER-STATES | discussion + annotated summary | draft-discussion
    "discuss": {s: ("draft-discussion", "draft-discussion") for s in PAPER_STATES},
    # memory [query] | ANY | shows memory-graph nodes | same
    "memory": {s: (None, None) for s in ALL},
    # improve / save / undo / redo in draft-discussion (DRAFT_STATES, save above); summary / open (VIEW_STATES)
}
