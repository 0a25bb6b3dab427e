"""A turn's conversation function, decided by code: rules first, then labelled exemplars.

The five functions come from the seed: clarification, problem-solving,
elaboration, new topic introduction, critique. Rules read the question and
why the student asked it (the topic kind); when no rule fires, the question
goes to the label of its nearest exemplar by embedding similarity. The model
never chooses the label, so a 270M model cannot mislabel a turn.
"""

from __future__ import annotations

import re
from typing import Callable, Sequence

import numpy as np

FUNCTIONS = ("clarification", "problem-solving", "elaboration", "new topic introduction", "critique")

_CRITIQUE = re.compile(r"\b(limitation|weakness|drawback|fail|flaw|bias|threat|shortcoming|criticis|assum|"
                       r"trade-?off|downside|not work|concern)", re.I)
_CLARIFY = re.compile(r"\b(what (?:does|do|is|are) .{0,60}\bmean|mean by|define|definition|what is meant|"
                      r"what exactly|stand for|refer to)\b|^\s*what (?:is|are) (?:an? |the )?[\w\s\"'-]{1,40}\?\s*$",
                      re.I)
_SOLVE = re.compile(r"^\s*how (?:do|does|did|can|could|would|is|are)\b|\b(solve|address|tackle|overcome|"
                    r"implement|compute|approach the problem)\b", re.I)
_ELABORATE = re.compile(r"\b(more about|say more|elaborate|expand on|in more detail|go deeper|further)\b", re.I)

EXEMPLARS: dict[str, Sequence[str]] = {
    "clarification": ["What does this term mean?", "What is meant by the word used here?",
                      "Can you explain what this concept is?"],
    "problem-solving": ["How does the system solve this problem?", "How do they compute the result?",
                        "What steps does the method take to handle this?"],
    "elaboration": ["Can you tell me more about that?", "What else does the paper say about this point?",
                    "Could you give more detail on the previous answer?"],
    "new topic introduction": ["What does the next section of the paper cover?", "What is this part of the paper about?",
                               "What does the paper study?"],
    "critique": ["What are the weaknesses of this approach?", "Is the evaluation convincing?",
                 "What could go wrong with this method?"],
}

Encoder = Callable[[Sequence[str]], np.ndarray]


def by_rules(question: str, topic_kind: str, new_section: bool) -> str | None:
    """The function the rules decide, or None when they do not."""
    if topic_kind == "critique" or _CRITIQUE.search(question):
        return "critique"
    if topic_kind == "follow-up" or _ELABORATE.search(question):
        return "elaboration"
    if topic_kind == "term" or _CLARIFY.search(question):
        return "clarification"
    if topic_kind == "method" or _SOLVE.search(question):
        return "problem-solving"
    if new_section:
        return "new topic introduction"
    return None


class FunctionClassifier:
    """Rules, then the nearest labelled exemplar (vectors computed once)."""

    def __init__(self, encode: Encoder) -> None:
        self.encode = encode
        self._labels = [label for label, texts in EXEMPLARS.items() for _ in texts]
        self._matrix: np.ndarray | None = None

    def classify(self, question: str, topic_kind: str = "", new_section: bool = False) -> str:
        ruled = by_rules(question, topic_kind, new_section)
        if ruled is not None:
            return ruled
        if self._matrix is None:
            self._matrix = self.encode([t for texts in EXEMPLARS.values() for t in texts])
        sims = self._matrix @ self.encode([question])[0]
        return self._labels[int(np.argmax(sims))]
