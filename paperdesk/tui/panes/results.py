"""ResultsPane: last_query_set (find, list, sem-search, research), 20 rows a page."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.message import Message
from textual.widgets import DataTable, Label, Static
from paperdesk.core.progress import counted

if TYPE_CHECKING:
    from paperdesk.core.commands.views import ResultsView

_TITLES = {"find": "arXiv results", "list": "Library", "sem-search": "Papers of the answer",
           "research": "Papers of the report"}


EMPTY = ("find <query> to search arXiv, list for your library, sem-search <query> to ask it\n\n"
         "Enter on a result summarizes or opens it; F1 lists every command")
_FIXED_WIDTH = 3 + 4 + 1 + 2 * 4 + 2  # the other columns, their cell padding, and a scrollbar


def _cut(text: str, width: int) -> str:
    return text if len(text) <= width else text[: width - 1] + "…"


class ResultsPane(Vertical):
    """A page of results; Enter on a row posts Chosen with the row's result number."""

    @dataclass
    class Chosen(Message):
        number: int

    def __init__(self, **kwargs) -> None:
        super().__init__(**kwargs)
        self.view: ResultsView | None = None
        self.enter_hint = ""

    def on_mount(self) -> None:
        self.border_title, self.border_subtitle = "Results", "F2"

    def compose(self) -> ComposeResult:
        yield Static(EMPTY, id="results-empty", markup=False)  # what to do, until there are results
        yield DataTable(id="results-table", cursor_type="row", zebra_stripes=True)
        yield Static("", id="results-abstract", markup=False)  # the highlighted arXiv result's abstract
        yield Label("no results yet", id="results-footer")

    def _empty(self, empty: bool) -> None:
        self.query_one("#results-empty").display = empty

    @property
    def table(self) -> DataTable:
        return self.query_one(DataTable)

    def show(self, view: "ResultsView", enter_hint: str = "") -> None:
        """Display one page of a results view (attributes down from the app)."""
        self.view = view
        self.enter_hint = enter_hint
        self.border_title = _TITLES.get(view.kind, "Results") + (f": {view.query}" if view.query else "")
        self.border_subtitle = "F2"
        self._empty(False)
        table = self.table
        table.clear(columns=True)
        width = max(20, self.size.width - _FIXED_WIDTH)
        table.add_column("#", width=3)
        table.add_column("paper", width=width)
        table.add_column("year", width=4)
        table.add_column("", width=1)  # ● when the paper is in the library
        for n, item in view.page_items:
            authors = item.authors[0].split()[-1] + (" et al." if len(item.authors) > 1 else "") if item.authors else ""
            second = " · ".join(part for part in (authors, item.detail) if part)
            cell = Text(_cut(item.title, width), no_wrap=True)
            cell.append("\n" + _cut(second, width), style="dim")
            table.add_row(str(n), cell, str(item.year or ""), "●" if item.in_library else "", key=str(n), height=2)
        self._footer()
        self.show_abstract(self.selected_number())

    @on(DataTable.RowHighlighted)
    def _highlighted(self, event: DataTable.RowHighlighted) -> None:
        self.show_abstract(int(event.row_key.value) if event.row_key.value else None)

    def show_abstract(self, number: int | None) -> None:
        """Under find results, the abstract of the highlighted paper (arXiv sent it with the result)."""
        box = self.query_one("#results-abstract", Static)
        item = self.view.items[number - 1] if self.view is not None and number and number <= len(self.view.items) else None
        abstract = (item.arxiv or {}).get("abstract", "") if item is not None else ""
        box.display = bool(abstract)
        box.update(abstract)

    def on_resize(self) -> None:
        if self.view is not None:
            self.show(self.view, self.enter_hint)

    def clear_results(self, note: str) -> None:
        self.view = None
        self.show_abstract(None)
        self.border_title = "Results"
        self.border_subtitle = "F2"
        self.table.clear(columns=True)
        self._empty(True)
        self.query_one("#results-footer", Label).update(note)

    def _footer(self) -> None:
        view = self.view
        if view is None:
            return
        if not view.items:
            text = "nothing found"
        else:
            pages = f"page {view.page} of {view.pages} · " if view.pages > 1 else ""
            hint = f" · Enter: {self.enter_hint}" if self.enter_hint else ""
            legend = " · ● in library" if any(i.in_library for i in view.items) else ""
            text = f"{pages}{counted(len(view.items), 'result')}{hint}{legend}"
        self.query_one("#results-footer", Label).update(text)

    def turn_page(self, delta: int) -> bool:
        """Show the next (+1) or previous (-1) page; False when there is none."""
        view = self.view
        if view is None or not 1 <= view.page + delta <= view.pages:
            return False
        from dataclasses import replace

        self.show(replace(view, page=view.page + delta), self.enter_hint)
        return True

    def selected_number(self) -> int | None:
        table = self.table
        if self.view is None or table.row_count == 0:
            return None
        row_key = table.coordinate_to_cell_key(table.cursor_coordinate).row_key
        return int(row_key.value) if row_key.value else None

    @on(DataTable.RowSelected)
    def _chosen(self, event: DataTable.RowSelected) -> None:
        event.stop()
        if event.row_key.value:
            self.post_message(self.Chosen(int(event.row_key.value)))
