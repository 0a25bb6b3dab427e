"""DiscussionPane: a student/teacher/observer discussion as it runs, then its annotated summary.

Turns arrive as `DiscussionProgress` events (question, teacher tokens, the
checked answer, observer insights); the pane keeps a markdown transcript and
re-renders it in batches, like the draft pane, so a fast model never floods
the UI. When the observer's summary arrives (or a stored discussion draft is
shown) the annotated summary follows the transcript.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual.app import ComposeResult
from textual.containers import Vertical, VerticalScroll
from textual.widgets import Label, Markdown

if TYPE_CHECKING:
    from paperdesk.core.commands.views import DiscussionProgress, DraftView

REFRESH = 0.1  # seconds between re-renders while a discussion streams
EMPTY = """\
**No discussion yet**

`discuss <n|id>` runs a student/teacher discussion of a library paper, with an observer every K turns
(`--turns N`, `--every K`; 10 and 3 by default) and an annotated summary at the end. Esc interrupts it;
`discuss --resume` continues from the last finished turn. `memory [query]` (or F10) searches what the
discussions established, each fact cited to paper and page.
"""


class DiscussionPane(Vertical):
    def __init__(self, **kwargs) -> None:
        super().__init__(**kwargs)
        self.blocks: list[str] = []  # finished markdown blocks of the transcript
        self.answer = ""  # the teacher's answer streaming now
        self.summary = ""  # the annotated summary, once written
        self.discussion_id: int | None = None
        self.turn = 0  # the turn running now (when stopped: the last one that ran)
        self.total = 0
        self.asked = False  # the running turn's question is out: the teacher answers it
        self.title = ""
        self.running = False
        self._dirty = False

    def compose(self) -> ComposeResult:
        yield Label("no discussion yet", id="discussion-header")
        with VerticalScroll(id="discussion-scroll"):
            yield Markdown(EMPTY, id="discussion-body")

    def on_mount(self) -> None:
        self.border_title = "Discussion"
        self.set_interval(REFRESH, self._flush)

    @property
    def markdown(self) -> str:
        """The pane's text: transcript, the answer streaming now, then the annotated summary."""
        parts = list(self.blocks)
        if self.answer:
            parts.append(f"**Teacher:** {self.answer}")
        if self.summary:  # finished: the annotated summary first, the transcript under it
            parts = [self.summary, *(["---", "## Transcript", *parts] if parts else [])]
        return "\n\n".join(parts) if parts else EMPTY

    def event(self, event: "DiscussionProgress") -> None:
        """One step of the running discussion."""
        kind = event.kind
        if kind == "start":
            resumed = int(event.data.get("resumed_after") or 0)
            if event.discussion_id != self.discussion_id or not resumed:
                self.blocks = []
            self.summary = ""
            self.discussion_id, self.title, self.total = event.discussion_id, event.data.get("title", ""), event.total
            self.turn, self.asked, self.answer, self.running = min(resumed + 1, event.total), False, "", True
            if resumed and not self.blocks:  # resumed after a restart: the stored turns, then the new ones
                for turn in event.data.get("earlier") or []:
                    self._turn_blocks(turn, event.total)
                self.blocks.append(f"*resumed after turn {resumed} of {event.total}*")
        elif kind == "question":
            self.turn, self.total, self.answer, self.asked = event.turn, event.total, "", True
            self.blocks.append(f"### Turn {event.turn}/{event.total}\n\n**Student:** {event.text}")
        elif kind == "token":
            self.answer += event.text
        elif kind == "answer":
            self.blocks.append(f"**Teacher:** {event.text}")
            self.answer, self.asked = "", False
            self.turn = min(event.turn + 1, event.total)  # the next turn's student asks now
        elif kind == "insight":
            self.blocks.append(_insight(event.data))
        elif kind == "summary":
            self.summary, self.running = event.text, False
        elif kind in ("done", "interrupted"):
            self.running, self.asked = False, False
            self.turn = event.turn or self.turn
            if kind == "interrupted":
                self.answer = ""
                self.blocks.append(f"*{event.text}; `discuss --resume` continues*")
        self._header()
        self._dirty = True

    def _turn_blocks(self, turn: dict, total: int) -> None:
        """A stored turn (Turn.to_json) as the blocks it had while it ran."""
        self.blocks.append(f"### Turn {turn.get('n')}/{total}\n\n**Student:** {turn.get('question', '')}")
        self.blocks.append(f"**Teacher:** {turn.get('answer', '')}")
        if turn.get("insight"):
            self.blocks.append(_insight(turn["insight"]))

    def show_summary(self, view: "DraftView") -> None:
        """A stored discussion draft (a finished run, undo/redo, or a resumed session)."""
        self.running = False
        self.answer = ""
        # an interrupted discussion's draft is its transcript: the pane already shows those turns, if it ran here
        if view.status != "interrupted" or not self.blocks:
            self.summary = view.text
        if not self.blocks:
            self.title = view.title
        self._header(f"revision {view.revision} · {view.status}" if view.revision is not None else "")
        self._dirty = True

    def progress_line(self) -> str:
        """What the status bar shows while the discussion runs: "turn 4/10 · teacher answering"."""
        if not self.total:
            return "discussion starting …"
        who = "teacher answering" if self.asked else "student asking"
        return f"turn {self.turn}/{self.total} · {who} · Esc stops"

    def _header(self, extra: str = "") -> None:
        if self.discussion_id is None and not self.title:
            text = "no discussion yet"
        else:
            where = f"turn {self.turn}/{self.total}" if self.total else ""
            state = "running" if self.running else ("finished" if self.summary else "stopped")
            text = " · ".join(p for p in (f"discussion {self.discussion_id}" if self.discussion_id else "",
                                          self.title, where, state, extra) if p)
        self.query_one("#discussion-header", Label).update(text)

    async def _flush(self) -> None:
        if not self._dirty:
            return
        self._dirty = False
        await self.query_one("#discussion-body", Markdown).update(self.markdown)  # laid out before we scroll
        scroll = self.query_one("#discussion-scroll", VerticalScroll)
        if self.running:
            self.call_after_refresh(scroll.scroll_end, animate=False)
        else:
            self.call_after_refresh(scroll.scroll_home, animate=False)


def _insight(data: dict) -> str:
    return (f"> **Observer** to the student: {data['student']['text']}  \n"
            f"> to the teacher: {data['teacher']['text']}")
