"""PaperDeskApp: the library and hybrid search over it, from the keyboard.

The full workbench (workflow-bound panes, drafts, notes, reader) builds on
this; here the app lists the library and searches it without blocking: the
library opens and every search runs in a thread worker that posts messages.
"""

from __future__ import annotations

from dataclasses import dataclass

from textual import on, work
from textual.app import App, ComposeResult
from textual.binding import Binding
from textual.message import Message
from textual.widgets import DataTable, Footer, Header, Input, Static

from paperdesk.config import Settings
from paperdesk.core.errors import PaperdeskError
from paperdesk.core.library import Hit, Library
from paperdesk.core.store import Paper


class PaperDeskApp(App):
    TITLE = "paperdesk"
    CSS = """
    #status { height: 1; padding: 0 1; background: $panel; }
    DataTable { height: 1fr; }
    """
    BINDINGS = [
        Binding("ctrl+q", "quit", "Quit", id="quit"),
        Binding("slash", "focus_search", "Search", id="focus_search"),
        Binding("ctrl+l", "show_library", "Library", id="show_library"),
    ]

    @dataclass
    class LibraryOpened(Message):
        library: Library
        papers: list[Paper]

    @dataclass
    class SearchDone(Message):
        query: str
        hits: list[Hit]

    @dataclass
    class Failed(Message):
        error: str

    def __init__(self, settings: Settings) -> None:
        super().__init__()
        self.settings = settings
        self.library: Library | None = None

    def compose(self) -> ComposeResult:
        yield Header()
        yield Input(placeholder="search the library (hybrid)   Enter to search", id="query")
        yield DataTable(id="table", cursor_type="row", zebra_stripes=True)
        yield Static("opening the library ...", id="status")
        yield Footer()

    def on_mount(self) -> None:
        self.query_one(DataTable).focus()  # so "/" is a key binding, not a character in the search box
        self.open_library()

    @work(thread=True, exclusive=True, group="library", exit_on_error=False)
    def open_library(self) -> None:
        try:
            library = Library(self.settings)
            self.post_message(self.LibraryOpened(library, library.list(1, 10_000)[0]))
        except PaperdeskError as exc:
            self.post_message(self.Failed(str(exc)))

    @work(thread=True, exclusive=True, group="search", exit_on_error=False)
    def run_search(self, query: str) -> None:
        assert self.library is not None
        try:
            self.post_message(self.SearchDone(query, self.library.search(query, k=20)))
        except PaperdeskError as exc:
            self.post_message(self.Failed(str(exc)))

    @on(LibraryOpened)
    def show_papers(self, message: LibraryOpened) -> None:
        self.library = message.library
        table = self.query_one(DataTable)
        table.clear(columns=True)
        table.add_columns("#", "id", "title", "authors", "pages")
        for n, paper in enumerate(message.papers, start=1):
            table.add_row(str(n), paper.id, paper.title, ", ".join(paper.authors[:2]), str(paper.page_count))
        count = len(message.papers)
        self.set_status(f"{count} paper(s) in {self.settings.home}" if count else
                        "the library is empty: add papers with `paperdesk add ID|FILE`")

    @on(SearchDone)
    def show_hits(self, message: SearchDone) -> None:
        table = self.query_one(DataTable)
        table.clear(columns=True)
        table.add_columns("#", "paper", "pages", "section", "snippet")
        for n, hit in enumerate(message.hits, start=1):
            table.add_row(str(n), hit.title[:40], f"{hit.page_start}-{hit.page_end}", hit.section[:24],
                          hit.snippet.replace("**", "")[:100])
        self.set_status(f"{len(message.hits)} hit(s) for {message.query!r}")

    @on(Failed)
    def show_error(self, message: Failed) -> None:
        self.set_status(f"error: {message.error}")

    @on(Input.Submitted, "#query")
    def submit_query(self, event: Input.Submitted) -> None:
        query = event.value.strip()
        if not query:
            return
        if self.library is None:
            self.set_status("the library is still opening; try again in a moment")
            return
        self.set_status(f"searching for {query!r} ...")
        self.run_search(query)

    def action_focus_search(self) -> None:
        self.query_one(Input).focus()

    def action_show_library(self) -> None:
        if self.library is not None:
            self.post_message(self.LibraryOpened(self.library, self.library.list(1, 10_000)[0]))

    def set_status(self, text: str) -> None:
        self.query_one("#status", Static).update(text)
