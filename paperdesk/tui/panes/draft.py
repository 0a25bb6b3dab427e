"""DraftPane: the summary, answer or report being worked on, streamed as tokens arrive."""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual.app import ComposeResult
from textual.containers import Vertical, VerticalScroll
from textual.widgets import Label, Markdown

from paperdesk.core.agents.quality import cited_share_line

if TYPE_CHECKING:
    from paperdesk.core.views import DraftView

STREAM_INTERVAL = 0.08  # seconds between markdown refreshes while tokens stream in
WELCOME = """\
**Getting started**

- `find <query>` searches arXiv; Enter on a result summarizes it (download, index, summary with page citations)
- `improve <feedback>` rewrites the draft; `save` keeps it, `abandon` drops it; `notes <text>` or F4 for notes
- `list` shows your library; Enter opens a paper in the reader (←/→ pages, f to find)
- `sem-search <query>` answers from your library, citing paper and page; `research <query>` writes a report

F1 lists every command and why one is unavailable now · ctrl+p is the palette · Esc stops a running generation
"""


class DraftPane(Vertical):
    def __init__(self, **kwargs) -> None:
        super().__init__(**kwargs)
        self._pending: list[str] = []
        self.streaming = False
        self.view: DraftView | None = None

    def compose(self) -> ComposeResult:
        yield Label("no draft yet", id="draft-header")
        with VerticalScroll(id="draft-scroll"):
            yield Markdown(WELCOME, id="draft-body")
        yield Label("", id="draft-footer")

    def on_mount(self) -> None:
        self._footer("")
        self.set_interval(STREAM_INTERVAL, self._flush)

    @property
    def body(self) -> Markdown:
        return self.query_one("#draft-body", Markdown)

    def start_stream(self, kind: str, title: str) -> None:
        """Clear the pane for a generation that is starting."""
        self._pending.clear()
        self.streaming = True
        self.border_title = {"summary": "Draft summary", "answer": "Answer", "report": "Research report"}.get(kind, kind)
        self.query_one("#draft-header", Label).update(f"{title} · writing …")
        self.body.update("")
        self._footer("")

    def append(self, text: str) -> None:
        """Queue streamed text; it is rendered in batches so the UI keeps up with the model."""
        self._pending.append(text)

    def _flush(self) -> None:
        if not self._pending:
            return
        text = "".join(self._pending)
        self._pending.clear()
        self.body.append(text)
        self.query_one("#draft-scroll", VerticalScroll).scroll_end(animate=False)

    def show(self, view: "DraftView") -> None:
        """Show a stored revision (the checked text replaces what was streamed)."""
        self._pending.clear()
        self.streaming = False
        self.view = view
        self.border_title = {"summary": "Summary", "answer": "Answer", "report": "Research report"}.get(view.kind,
                                                                                                      view.kind)
        revision = f"revision {view.revision}" if view.revision is not None else "no revision yet"
        self.query_one("#draft-header", Label).update(f"{revision} · {view.status} · {view.title}")
        self.body.update(view.text + sources_markdown(view.sources))
        self._footer(cited_share_line(view.text) if view.kind == "summary" else "")
        self.query_one("#draft-scroll", VerticalScroll).scroll_home(animate=False)

    def clear_draft(self) -> None:
        self._pending.clear()
        self.streaming = False
        self.view = None
        self.border_title = "Draft"
        self.query_one("#draft-header", Label).update("no draft yet")
        self.body.update(WELCOME)
        self._footer("")

    def _footer(self, text: str) -> None:
        """The grounding line under the draft ("14 of 17 sentences cited"); hidden when empty."""
        footer = self.query_one("#draft-footer", Label)
        footer.update(text)
        footer.display = bool(text)


def sources_markdown(sources: list[dict]) -> str:
    if not sources:
        return ""
    lines = ["", "", "**Sources**", ""]
    for s in sources:
        mark = "" if s.get("cited", True) else " *(not cited)*"
        lines.append(f"- [{s['n']}] {s.get('title', '')} ({s['paper_id']}, p. {s['page']}){mark}")
    return "\n".join(lines)
