"""ReaderPane: a paper's text page by page, with jump-to-page and find-in-paper."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Callable

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.message import Message
from textual.widgets import Input, Label, Static

from paperdesk.tui.panes.base import Pane

if TYPE_CHECKING:
    from paperdesk.core.library import Library


class PageText(VerticalScroll):
    """The page's text; left/right (or p/n) turn pages instead of scrolling sideways."""

    BINDINGS = [
        Binding("right,n", "turn(1)", "Next page", id="reader_next"),
        Binding("left,p", "turn(-1)", "Previous page", id="reader_prev"),
        Binding("f,g", "find", "Find / go to page", id="reader_find"),
    ]

    def action_turn(self, delta: int) -> None:
        self.parent_pane.turn_page(delta)

    def action_find(self) -> None:
        self.parent_pane.action_find()

    @property
    def parent_pane(self) -> "ReaderPane":
        return next(a for a in self.ancestors if isinstance(a, ReaderPane))


class ReaderPane(Pane):
    """Pages come from the library in a worker; the app passes in how to reach the library."""
    @dataclass
    class PageRequested(Message):
        paper_id: str
        page: int
        highlight: str = ""

    @dataclass
    class FindRequested(Message):
        """Find the next page (after `after_page`, wrapping) whose text contains `query`."""

        paper_id: str
        query: str
        after_page: int

    @dataclass
    class PageLoaded(Message):
        paper_id: str
        title: str
        page: int
        pages: int
        text: str
        highlight: str = ""
        reveal: bool = True  # bring the reader to the front

    @dataclass
    class Problem(Message):
        """A page or a search could not be shown; the app says why."""

        text: str

    def __init__(self, library: Callable[[], "Library | None"], **kwargs) -> None:
        super().__init__(**kwargs)
        self._library = library
        self.paper_id: str | None = None
        self.page = 0
        self.pages = 0
        self.highlight = ""

    def compose(self) -> ComposeResult:
        yield Label("nothing open: open <n> shows a paper, page by page", id="reader-header")
        yield Input(placeholder="page number, or words to find in this paper (Enter)", id="reader-find")
        with PageText(id="reader-scroll"):
            yield Static("", id="reader-text")

    def on_mount(self) -> None:
        self.query_one("#reader-find", Input).display = False

    def show_page(self, paper_id: str, title: str, page: int, pages: int, text: str, highlight: str = "") -> None:
        self.paper_id, self.page, self.pages, self.highlight = paper_id, page, pages, highlight
        self.border_title = f"Reader: {title}"
        found = f" · '{highlight}'" if highlight else ""
        self.query_one("#reader-header", Label).update(
            f"{paper_id} · page {page} of {pages}{found} · ←/→ pages · f find or go to page")
        body = Text(text)
        if highlight:
            body.highlight_words([highlight], style="reverse", case_sensitive=False)
        self.query_one("#reader-text", Static).update(body)
        self.query_one("#reader-scroll", VerticalScroll).scroll_home(animate=False)

    def turn_page(self, delta: int) -> bool:
        if self.paper_id is None or not 1 <= self.page + delta <= self.pages:
            return False
        self.post_message(self.PageRequested(self.paper_id, self.page + delta, self.highlight))
        return True

    def action_find(self) -> None:
        if self.paper_id is None:
            return
        box = self.query_one("#reader-find", Input)
        box.display = True
        box.focus()

    @on(Input.Submitted, "#reader-find")
    def _find(self, event: Input.Submitted) -> None:
        event.stop()
        value = event.value.strip()
        box = event.input
        box.display = False
        box.value = ""
        self.query_one("#reader-scroll").focus()
        if not value or self.paper_id is None:
            return
        if value.isdigit():
            self.post_message(self.PageRequested(self.paper_id, int(value)))
        else:
            self.post_message(self.FindRequested(self.paper_id, value, self.page))

    @on(PageRequested)
    def _page_requested(self, message: "ReaderPane.PageRequested") -> None:
        self.load_page(message.paper_id, message.page, message.highlight)

    @on(FindRequested)
    def _find_requested(self, message: "ReaderPane.FindRequested") -> None:
        self.find_in_paper(message.paper_id, message.query, message.after_page)

    @on(PageLoaded)
    def _page_loaded(self, message: "ReaderPane.PageLoaded") -> None:
        self.show_page(message.paper_id, message.title, message.page, message.pages, message.text, message.highlight)

    @work(thread=True, group="reader", exclusive=True, exit_on_error=False)
    def load_page(self, paper_id: str, page: int, highlight: str = "", reveal: bool = True) -> None:
        from paperdesk.core.errors import PaperdeskError

        library = self._library()
        if library is None:
            return
        try:
            paper, text = library.page_text(paper_id, page)
        except PaperdeskError as exc:
            self.post_message(self.Problem(str(exc)))
            return
        self.post_message(self.PageLoaded(paper.id, paper.title, page, paper.page_count, text, highlight, reveal))

    @work(thread=True, group="reader", exclusive=True, exit_on_error=False)
    def find_in_paper(self, paper_id: str, query: str, after_page: int) -> None:
        """Show the next page (after `after_page`, wrapping around) that contains `query`."""
        library = self._library()
        if library is None:
            return
        paper = library.get(paper_id)
        for page in [*range(after_page + 1, paper.page_count + 1), *range(1, after_page + 1)]:
            text = library.store.page_text(paper.id, page) or ""
            if query.lower() in text.lower():
                self.post_message(self.PageLoaded(paper.id, paper.title, page, paper.page_count, text, query))
                return
        self.post_message(self.Problem(f"{query!r} is not in {paper.id}"))
