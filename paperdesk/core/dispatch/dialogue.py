"""The dialogue: the user's free-text messages and the desk's replies since the last act.

A message the user types on their own is an *initiative*; the answer to the
desk's own clarifying question is a *solicited reply* and is linked to that
question (`answers` = the question's index). Every agent of the
plan-do-check-act cycle gets the dialogue through `as_prompt_block()`; the
act (`save`, `abandon`, `clear`) empties it.
"""

from __future__ import annotations

import time
from dataclasses import asdict, dataclass, field
from typing import Any

ACT_COMMANDS = frozenset({"save", "abandon", "clear"})


@dataclass
class Turn:
    role: str  # "user" or "desk"
    kind: str  # user: "message" | "reply"; desk: "question" | "confirm" | "decision" | "refusal"
    text: str
    answers: int | None = None  # a reply: index of the question it answers
    answered: bool = False  # a question: a reply has come
    created: float = field(default_factory=time.time)


class Dialogue:
    """Ordered turns since the last act; JSON-serialisable for the session."""

    def __init__(self, turns: list[Turn] | None = None) -> None:
        self.turns: list[Turn] = list(turns or [])

    def __len__(self) -> int:
        return len(self.turns)

    def __bool__(self) -> bool:  # an empty dialogue is still a dialogue object
        return True

    @property
    def pending_question(self) -> Turn | None:
        """The desk's last question if no reply has come yet (the next user line answers it)."""
        for turn in reversed(self.turns):
            if turn.role == "desk" and turn.kind == "question":
                return None if turn.answered else turn
            if turn.role == "user":
                return None
        return None

    def pending_index(self) -> int | None:
        question = self.pending_question
        return None if question is None else self.turns.index(question)

    def receive(self, text: str) -> Turn:
        """Record a user line: a solicited reply when a question is pending, else a new message."""
        index = self.pending_index()
        if index is not None:
            self.turns[index].answered = True
            turn = Turn("user", "reply", text.strip(), answers=index)
        else:
            turn = Turn("user", "message", text.strip())
        self.turns.append(turn)
        return turn

    def ask(self, question: str) -> Turn:
        turn = Turn("desk", "question", question.strip())
        self.turns.append(turn)
        return turn

    def note(self, text: str, kind: str = "decision") -> Turn:
        """Record what the desk did with the last line (a decision or a refusal)."""
        turn = Turn("desk", kind, text.strip())
        self.turns.append(turn)
        return turn

    def question_for(self, turn: Turn) -> Turn | None:
        """The question a solicited reply answers."""
        if turn.answers is None or not 0 <= turn.answers < len(self.turns):
            return None
        return self.turns[turn.answers]

    def origin_of(self, question_index: int) -> str | None:
        """The user line that led to the question at question_index (what the reply completes)."""
        for turn in reversed(self.turns[:question_index]):
            if turn.role == "user":
                return turn.text
        return None

    def clear(self) -> None:
        self.turns.clear()

    def after_command(self, name: str) -> bool:
        """Clear at the cycle's act; True when it did."""
        if name in ACT_COMMANDS:
            self.clear()
            return True
        return False

    def user_messages(self) -> int:
        return sum(1 for t in self.turns if t.role == "user")

    def as_prompt_block(self) -> str:
        """The optional "User dialogue" block for agent prompts; "" when there is nothing to say."""
        if not self.turns:
            return ""
        lines = ["User dialogue (the user's own words since this task began; follow them):"]
        for turn in self.turns:
            if turn.role == "user":
                label = "User (answering the question above)" if turn.kind == "reply" else "User"
            else:
                label = {"question": "Desk asked", "confirm": "Desk asked first", "refusal": "Desk refused"}.get(
                    turn.kind, "Desk understood")
            lines.append(f"- {label}: {turn.text}")
        return "\n".join(lines) + "\n"

    def to_json(self) -> list[dict[str, Any]]:
        return [asdict(t) for t in self.turns]

    @classmethod
    def from_json(cls, data: Any) -> "Dialogue":
        """A dialogue from stored JSON; malformed turns are dropped rather than failing the session."""
        turns: list[Turn] = []
        for item in data if isinstance(data, list) else []:
            try:
                turns.append(Turn(**item))
            except TypeError:
                continue
        return cls(turns)
