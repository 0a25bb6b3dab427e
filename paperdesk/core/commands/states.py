"""The workflow's states (spec/workflow.md) and the named groups of them that command rules use."""

from __future__ import annotations

from dataclasses import dataclass

SAME = "(same)"


@dataclass(frozen=True)
class StateInfo:
    name: str  # as `status` prints it
    workflow: str
    exit_state: bool
    meaning: str
    blocks: str = ""  # when set, what every command this state refuses says instead of its own hint

    @property
    def id(self) -> str:
        return self.name.replace("-", "_")


STATES: tuple[StateInfo, ...] = (
    StateInfo("initial", "-", True, "start, or a query returned nothing"),
    StateInfo("select-new", "new-paper", True, "find returned arXiv results; pick one to add"),
    StateInfo("draft-summary", "new-paper", False, "paper downloaded and indexed; its summary draft is under review",
              blocks="finish the draft summary first: save it (save) or discard it (abandon)"),
    StateInfo("summarized", "new-paper", True, "summary saved; the paper is in the collection"),
    StateInfo("select-view", "view-paper", True, "list returned the library; pick one to view"),
    StateInfo("draft-sem-search", "semantic-search", True, "hybrid search with a cited answer draft"),
    StateInfo("draft-research", "research", True, "research report draft"),
    StateInfo("draft-plan", "research", True, "a research plan is under review; nothing has run yet"),
    StateInfo("draft-discussion", "discussion", True,
              "a finished (or interrupted) discussion and its annotated summary"),
)
STATE_NAMES: tuple[str, ...] = tuple(s.name for s in STATES)
STATE_BY_NAME: dict[str, StateInfo] = {s.name: s for s in STATES}

ANY = STATE_NAMES
ANY_STAR = tuple(s for s in STATE_NAMES if not STATE_BY_NAME[s].blocks)  # every state a user may leave freely
DRAFTS = ("draft-summary", "summarized", "draft-sem-search", "draft-research", "draft-discussion")
VIEWERS = ("select-view", "draft-sem-search", "draft-research", "draft-discussion")
# Where a paper can be named (spec "Extensions beyond the seed"); discuss appends draft-discussion.
PAPER_STATES = ("summarized", "select-view", "draft-sem-search", "draft-research", "draft-discussion")
