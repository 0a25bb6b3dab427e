"""DraftPane: the summary, answer or report being worked on, streamed as tokens arrive."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.message import Message
from rich.text import Text
from textual.widgets import Label, Static

from paperdesk.core.commands.citation_links import citation_keys, key_of_href, link_citations

if TYPE_CHECKING:
    from textual.widget import AwaitMount
    from textual.widgets import Markdown

    from paperdesk.core.commands.views import DraftView

STREAM_INTERVAL = 0.08  # seconds between markdown refreshes while tokens stream in
WELCOME = """\
**Getting started**

- `find <query>` searches arXiv; Enter on a result summarizes it (download, index, summary with page citations)
- `improve <feedback>` rewrites the draft; `save` keeps it, `abandon` drops it; `notes <text>` or F4 for notes
- `list` shows your library; Enter opens a paper in the reader (←/→ pages, f to find)
- `sem-search <query>` answers from your library, citing paper and page; `research <query>` writes a report

F1 lists every command and why one is unavailable now · ctrl+p is the palette · Esc stops a running generation
"""


def welcome_text() -> Text:
    """WELCOME as plain styled text: what the first screen shows before the Markdown widget is loaded."""
    text = Text()
    for line in WELCOME.splitlines(keepends=True):
        if line.startswith("- "):
            text.append("• ")
            line = line[2:]
        for i, part in enumerate(line.replace("**", "`").split("`")):
            text.append(part, style="bold" if i % 2 else "")
    return text


class DraftText(VerticalScroll):
    """The draft's text; ←/→ pick a citation [n] and Enter opens it in the reader (a click does too)."""

    BINDINGS = [
        Binding("right", "cite(1)", "Next citation", id="draft_next_citation", show=False),
        Binding("left", "cite(-1)", "Previous citation", id="draft_prev_citation", show=False),
        Binding("enter", "open_citation", "Open citation", id="draft_open_citation", show=False),
    ]

    def action_cite(self, delta: int) -> None:
        self.pane.move_citation(delta)

    def action_open_citation(self) -> None:
        self.pane.open_citation()

    @property
    def pane(self) -> "DraftPane":
        return next(a for a in self.ancestors if isinstance(a, DraftPane))


class DraftPane(Vertical):
    @dataclass
    class CitationChosen(Message):
        """Open citation `key` ("3" for [3], "p4" for [p. 4]) of the shown draft in the reader."""

        key: str

    def __init__(self, **kwargs) -> None:
        super().__init__(**kwargs)
        self._pending: list[str] = []
        self.streaming = False
        self.view: DraftView | None = None
        self.citations: list[str] = []  # citation keys of the shown draft, in reading order
        self.citation: int | None = None  # the one picked with ←/→
        self._grounding = ""

    def compose(self) -> ComposeResult:
        yield Label("no draft yet", id="draft-header")
        with DraftText(id="draft-scroll"):
            yield Static(welcome_text(), id="draft-welcome")  # the Markdown body replaces it after the first paint
        footer = Label("", id="draft-footer")
        footer.display = False  # shown when there is a grounding line to say
        yield footer

    def move_citation(self, delta: int) -> None:
        if not self.citations:
            self._footer(self._grounding or "this draft cites nothing to open")
            return
        self.citation = 0 if self.citation is None else (self.citation + delta) % len(self.citations)
        self._citation_footer()

    def open_citation(self) -> None:
        if self.citation is None:
            self.move_citation(1)
        if self.citation is not None:
            self.post_message(self.CitationChosen(self.citations[self.citation]))

    def _citation_footer(self) -> None:
        key = self.citations[self.citation or 0]
        label = f"[p. {key[1:]}]" if key.startswith("p") else f"[{key}]"
        self._footer(f"citation {label} ({(self.citation or 0) + 1} of {len(self.citations)}) · ←/→ choose · "
                     "Enter opens it in the reader")

    def mount_body(self) -> "AwaitMount":
        """Put the Markdown body in place of the welcome text (markdown-it loads here, after the first paint)."""
        from textual.widgets import Markdown

        scroll = self.query_one("#draft-scroll", VerticalScroll)
        mounted = scroll.mount(Markdown(WELCOME, id="draft-body", open_links=False))
        scroll.query("#draft-welcome").remove()
        return mounted

    def on_markdown_link_clicked(self, event: "Markdown.LinkClicked") -> None:
        event.stop()
        key = key_of_href(event.href)
        if key is not None:
            if key in self.citations:
                self.citation = self.citations.index(key)
            self.post_message(self.CitationChosen(key))

    def on_mount(self) -> None:
        self.set_interval(STREAM_INTERVAL, self._flush)

    @property
    def body(self) -> "Markdown":
        return self.query_one("#draft-body")  # type: ignore[return-value]

    def start_stream(self, kind: str, title: str) -> None:
        """Clear the pane for a generation that is starting."""
        self._pending.clear()
        self.citations, self.citation = [], None
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
        self.body.update(link_citations(view.text) + sources_markdown(view.sources))
        self.citations, self.citation = citation_keys(view.text), None
        self._grounding = _cited_share(view.text) if view.kind == "summary" else ""
        hint = " · ←/→ + Enter opens a citation" if self.citations else ""
        self._footer((self._grounding + hint).lstrip(" ·"))
        self.query_one("#draft-scroll", VerticalScroll).scroll_home(animate=False)

    def clear_draft(self) -> None:
        self._pending.clear()
        self.streaming = False
        self.view = None
        self.citations, self.citation = [], None
        self.border_title = "Draft"
        self.query_one("#draft-header", Label).update("no draft yet")
        self.body.update(WELCOME)
        self._footer("")

    def _footer(self, text: str) -> None:
        """The grounding line under the draft ("14 of 17 sentences cited"); hidden when empty."""
        footer = self.query_one("#draft-footer", Label)
        footer.update(text)
        footer.display = bool(text)


def _cited_share(text: str) -> str:
    from paperdesk.core.agents.quality import cited_share_line  # numpy: loaded after the first paint

    return cited_share_line(text)


def sources_markdown(sources: list[dict]) -> str:
    if not sources:
        return ""
    lines = ["", "", "**Sources**", ""]
    for s in sources:
        mark = "" if s.get("cited", True) else " *(not cited)*"
        via = f" *({s['via']})*" if s.get("via") else ""  # found through the memory graph
        lines.append(f"- [{s['n']}] {s.get('title', '')} ({s['paper_id']}, p. {s['page']}){via}{mark}")
    return "\n".join(lines)
