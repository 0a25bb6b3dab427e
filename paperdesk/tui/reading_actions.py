"""The workbench's reading and library actions: citations to the reader, the PDF viewer.

A mixin of PaperDeskApp, kept out of app.py so that file stays about startup and running commands.
Handlers are named on_<widget>_<message> (Textual finds those along the class's MRO).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual.widgets import TabbedContent

from paperdesk.tui.panes.draft import DraftPane
from paperdesk.tui.panes.reader import ReaderPane
from paperdesk.tui.panes.results import ResultsPane

if TYPE_CHECKING:
    from paperdesk.tui.app import PaperDeskApp


class ReadingActions:
    def on_draft_pane_citation_chosen(self: "PaperDeskApp", message: DraftPane.CitationChosen) -> None:
        view = self.main.query_one(DraftPane).view
        if view is None:
            self.command_line.say("no draft is shown; its citations open once it is saved or loaded", "error")
            return
        self.main.query_one(ReaderPane).open_citation(view, message.key)

    def on_reader_pane_said(self: "PaperDeskApp", message: ReaderPane.Said) -> None:
        self.command_line.say(message.text)

    def action_open_external(self: "PaperDeskApp") -> None:
        """ctrl+o: the reader's paper at its page, else the selected result, in the system's PDF viewer."""
        reader = self.main.query_one(ReaderPane)
        results = self.main.query_one(ResultsPane)
        number = results.selected_number()
        reading = self.main.query_one(TabbedContent).active == "tab-reader" and reader.paper_id is not None
        if reading and not self._results_focused() or number is None and reader.paper_id is not None:
            reader.open_external(reader.paper_id, reader.page)
            return
        item = results.view.items[number - 1] if results.view is not None and number is not None else None
        if item is None or not item.in_library:
            self.command_line.say("no library paper to open: pick one in the results, or open <n> first", "error")
            return
        reader.open_external(item.id, 1)
