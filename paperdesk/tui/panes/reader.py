"""ReaderPane: a paper's text page by page, with jump-to-page and find-in-paper."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Callable

from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.message import Message
from textual.widgets import Input, Label, Static

from paperdesk.core.text.passages import Match, find_matches
from paperdesk.tui.messages import PaneSays
from paperdesk.tui.panes.base import Pane
from paperdesk.tui.panes.reader_marks import mark_row, marked_page

if TYPE_CHECKING:
    from paperdesk.core.library.library import Library
    from paperdesk.core.commands.views import DraftView


class PageText(VerticalScroll):
    """The page's text; left/right (or p) turn pages, n / N go to the next / previous find match."""

    BINDINGS = [
        Binding("right", "turn(1)", "Next page", id="reader_next"),
        Binding("left,p", "turn(-1)", "Previous page", id="reader_prev"),
        Binding("f,g", "find", "Find / go to page", id="reader_find"),
        Binding("n", "match(1)", "Next match", id="reader_next_match"),
        Binding("N", "match(-1)", "Previous match", id="reader_prev_match", key_display="N"),
        Binding("o", "external", "PDF viewer", id="reader_external"),
    ]

    def action_turn(self, delta: int) -> None:
        self.parent_pane.turn_page(delta)

    def action_find(self) -> None:
        self.parent_pane.action_find()

    def action_match(self, delta: int) -> None:
        self.parent_pane.next_match(delta)

    def action_external(self) -> None:
        pane = self.parent_pane
        if pane.paper_id is not None:
            pane.open_external(pane.paper_id, pane.page)

    @property
    def parent_pane(self) -> "ReaderPane":
        return next(a for a in self.ancestors if isinstance(a, ReaderPane))


class ReaderPane(Pane):
    """Pages come from the library in a worker; the app passes in how to reach the library.

    A find collects every match in the paper ("match 2 of 7"); n / N step through them across pages.
    A citation opens its page with the cited passage marked (`passage`).
    """

    @dataclass
    class PageRequested(Message):
        paper_id: str
        page: int
        highlight: str = ""  # a passage to mark on the page

    @dataclass
    class FindRequested(Message):
        """Find every match of `query` in the paper and show the first one from `after_page` on."""

        paper_id: str
        query: str
        after_page: int

    @dataclass
    class FindDone(Message):
        paper_id: str
        query: str
        matches: list[Match]
        from_page: int

    @dataclass
    class PageLoaded(Message):
        paper_id: str
        title: str
        page: int
        pages: int
        text: str
        highlight: str = ""
        reveal: bool = True  # bring the reader to the front

    Problem = PaneSays  # a page or a search could not be shown; the app says why

    @dataclass
    class Said(Message):
        """Something the reader did that the status line reports (a PDF viewer opened)."""

        text: str

    def __init__(self, library: Callable[[], "Library | None"], **kwargs) -> None:
        super().__init__(**kwargs)
        self._library = library
        self.paper_id: str | None = None
        self.title = ""
        self.page = 0
        self.pages = 0
        self.text = ""
        self.highlight = ""  # what is marked: the find's words or the cited passage
        self.passage = ""
        self.passage_found = False
        self.mark_in_view = False  # the marked line has been scrolled into view (it waits for the layout)
        self.find_query = ""
        self.matches: list[Match] = []
        self.match_index: int | None = None

    def compose(self) -> ComposeResult:
        yield Label("nothing open: open <n> shows a paper, page by page", id="reader-header")
        yield Input(placeholder="page number, or words to find in this paper (Enter)", id="reader-find")
        with PageText(id="reader-scroll"):
            yield Static("", id="reader-text")

    def on_mount(self) -> None:
        self.query_one("#reader-find", Input).display = False

    def show_page(self, paper_id: str, title: str, page: int, pages: int, text: str, highlight: str = "") -> None:
        """Show a page; `highlight` is a passage to mark on it (a citation's), which ends any find."""
        if paper_id != self.paper_id or highlight:
            self._end_find()
        self.paper_id, self.title, self.page, self.pages, self.text = paper_id, title, page, pages, text
        self.passage = highlight
        self.highlight = highlight or self.find_query
        self._render_page()
        self.query_one("#reader-scroll", VerticalScroll).scroll_home(animate=False)
        self._scroll_to_mark()

    def _end_find(self) -> None:
        self.find_query, self.matches, self.match_index = "", [], None
        self.passage, self.highlight, self.passage_found = "", "", False

    def match_label(self) -> str:
        """"match 2 of 7" while a find is active, else ""."""
        if not self.find_query:
            return ""
        if self.match_index is None:
            return "no match"
        return f"match {self.match_index + 1} of {len(self.matches)}"

    def _render_page(self) -> None:
        spans = [(m.start, m.end) for m in self.matches if m.page == self.page]
        current = None
        if self.match_index is not None:
            chosen = self.matches[self.match_index]
            current = spans.index((chosen.start, chosen.end)) if chosen.page == self.page else None
        body, self._mark_line, self.passage_found = marked_page(self.text, self.passage, spans, current)
        parts = [f"{self.paper_id} · page {self.page} of {self.pages}"]
        if self.find_query:
            parts.append(f"{self.match_label()} · '{self.find_query}' · n/N")
        elif self.passage:
            parts.append("cited passage marked" if self.passage_found else "cited passage not found on this page")
        parts.append("←/→ pages · f find · o PDF viewer")
        self.border_title = f"Reader: {self.title}"
        self.query_one("#reader-header", Label).update(" · ".join(parts))
        self.query_one("#reader-text", Static).update(body)

    def _scroll_to_mark(self) -> None:
        offset = getattr(self, "_mark_line", None)
        self.mark_in_view = offset is None
        if offset is not None:
            scroll = self.query_one("#reader-scroll", VerticalScroll)
            page = self.query_one("#reader-text", Static)

            def scroll_there(tries: int = 100) -> None:
                # once laid out: a page just loaded (or a tab just shown) has no width or height yet; on a
                # busy machine (a model writing on both cores) that can take more than a second
                row = mark_row(self.text, offset, page.content_size.width)
                if (page.content_size.width == 0 or page.size.height <= row) and tries:
                    self.set_timer(0.02, lambda: scroll_there(tries - 1))
                    return
                scroll.scroll_to(y=max(0, row - 3), animate=False, immediate=True)
                self.mark_in_view = True

            self.call_after_refresh(scroll_there)

    def turn_page(self, delta: int) -> bool:
        if self.paper_id is None or not 1 <= self.page + delta <= self.pages:
            return False
        self.load_page(self.paper_id, self.page + delta, keep_marks=True)
        return True

    def next_match(self, delta: int) -> bool:
        """Go to the next (+1) or previous (-1) find match, across pages and around the end."""
        if not self.matches or self.paper_id is None:
            self.post_message(self.Problem("no find in this paper: f and words to find, then n / N"))
            return False
        index = 0 if self.match_index is None else (self.match_index + delta) % len(self.matches)
        self._go_to_match(index)
        return True

    def _go_to_match(self, index: int) -> None:
        self.match_index = index
        match = self.matches[index]
        if match.page == self.page:
            self._render_page()
            self._scroll_to_mark()
        elif self.paper_id is not None:
            self.load_page(self.paper_id, match.page, keep_marks=True)

    def action_find(self) -> None:
        if self.paper_id is None:
            return
        box = self.query_one("#reader-find", Input)
        box.display = True
        self.screen.set_focus(box)  # at once: the words typed next go to the find box

    @on(Input.Submitted, "#reader-find")
    def _find(self, event: Input.Submitted) -> None:
        event.stop()
        value = event.value.strip()
        box = event.input
        box.display = False
        box.value = ""
        self.screen.set_focus(self.query_one("#reader-scroll"))
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

    @on(FindDone)
    def _find_done(self, message: "ReaderPane.FindDone") -> None:
        if message.paper_id != self.paper_id:
            return
        self._end_find()
        if not message.matches:
            self.post_message(self.Problem(f"{message.query!r} is not in {message.paper_id}"))
            self._render_page()
            return
        self.find_query = self.highlight = message.query
        self.matches = message.matches
        first = next((i for i, m in enumerate(message.matches) if m.page >= message.from_page), 0)
        self._go_to_match(first)

    @on(PageLoaded)
    def _page_loaded(self, message: "ReaderPane.PageLoaded") -> None:
        self.show_page(message.paper_id, message.title, message.page, message.pages, message.text, message.highlight)

    @dataclass
    class _MarkedPageLoaded(Message):
        page: int
        text: str

    @on(_MarkedPageLoaded)
    def _marked_page_loaded(self, message: "ReaderPane._MarkedPageLoaded") -> None:
        """A page turned to while a find or a cited passage is active: the marks stay."""
        self.page, self.text = message.page, message.text
        self._render_page()
        self.query_one("#reader-scroll", VerticalScroll).scroll_home(animate=False)
        self._scroll_to_mark()

    @work(thread=True, group="reader", exclusive=True, exit_on_error=False)
    def load_page(self, paper_id: str, page: int, highlight: str = "", reveal: bool = True,
                  keep_marks: bool = False) -> None:
        from paperdesk.core.errors import PaperdeskError

        library = self._library()
        if library is None:
            return
        try:
            paper, text = library.page_text(paper_id, page)
        except PaperdeskError as exc:
            self.post_message(self.Problem(str(exc)))
            return
        if keep_marks:
            self.post_message(self._MarkedPageLoaded(page, text))
        else:
            self.post_message(self.PageLoaded(paper.id, paper.title, page, paper.page_count, text, highlight, reveal))

    @work(thread=True, group="reader", exclusive=True, exit_on_error=False)
    def find_in_paper(self, paper_id: str, query: str, after_page: int) -> None:
        """Every match of `query` in the paper; the first shown is on `after_page` or later (wrapping)."""
        library = self._library()
        if library is None:
            return
        paper = library.get(paper_id)
        pages = [library.store.page_text(paper.id, n) or "" for n in range(1, paper.page_count + 1)]
        self.post_message(self.FindDone(paper.id, query, find_matches(pages, query), after_page))

    @work(thread=True, group="reader", exclusive=True, exit_on_error=False)
    def open_citation(self, view: "DraftView", key: str) -> None:
        """Show the page a draft's citation `key` points at, with the cited passage marked."""
        from paperdesk.core.commands.citation_links import citation_target
        from paperdesk.core.errors import PaperdeskError

        library = self._library()
        if library is None:
            return
        try:
            target = citation_target(view, key, library.store)
            paper, text = library.page_text(target.paper_id, target.page)
        except PaperdeskError as exc:
            self.post_message(self.Problem(f"cannot open citation: {exc}"))
            return
        self.post_message(self.PageLoaded(paper.id, paper.title, target.page, paper.page_count, text,
                                          target.passage))

    @work(thread=True, group="reader-external", exit_on_error=False)
    def open_external(self, paper_id: str, page: int) -> None:
        """Open the paper's PDF in the system's viewer at `page` (no desk involved: it never interrupts work)."""
        from paperdesk.core.errors import PaperdeskError
        from paperdesk.core.library.external import open_pdf

        library = self._library()
        if library is None:
            return
        try:
            paper = library.get(paper_id)
            said = open_pdf(paper.pdf_path, paper.id, page, library.settings["reader.pdf_viewer"])
        except PaperdeskError as exc:
            self.post_message(self.Problem(str(exc)))
            return
        self.post_message(self.Said(said))
