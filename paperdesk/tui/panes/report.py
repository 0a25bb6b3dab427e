"""ReportsPane: saved sem-search answers and research reports."""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual import on
from textual.app import ComposeResult
from textual.containers import Horizontal, VerticalScroll
from textual.widgets import Markdown, OptionList
from textual.widgets.option_list import Option

from paperdesk.tui.panes.draft import sources_markdown

if TYPE_CHECKING:
    from paperdesk.core.db.desk_store import Report


class ReportsPane(Horizontal):
    def __init__(self, **kwargs) -> None:
        super().__init__(**kwargs)
        self.reports: list[Report] = []

    def compose(self) -> ComposeResult:
        yield OptionList(id="reports-list")
        with VerticalScroll(id="report-scroll"):
            yield Markdown("No saved reports yet: `save [name]` after sem-search or research keeps one.",
                           id="report-body")

    def set_reports(self, reports: list["Report"]) -> None:
        self.reports = reports
        options = self.query_one(OptionList)
        options.clear_options()
        options.add_options([Option(f"#{r.id} {r.title} ({r.kind})", id=str(r.id)) for r in reports])
        if reports:
            options.highlighted = 0
            self._show(reports[0])

    @on(OptionList.OptionHighlighted)
    def _highlighted(self, event: OptionList.OptionHighlighted) -> None:
        event.stop()
        report = next((r for r in self.reports if str(r.id) == event.option.id), None)
        if report is not None:
            self._show(report)

    def _show(self, report: "Report") -> None:
        body = f"# {report.title}\n\n*{report.kind} · {report.query}*\n\n{report.text}{sources_markdown(report.sources)}"
        self.query_one("#report-body", Markdown).update(body)
