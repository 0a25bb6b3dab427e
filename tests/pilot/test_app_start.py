"""The app opens the library in a worker and searches it without blocking."""

import pytest
from textual.widgets import DataTable, Input, Static

from conftest import PAPERS
from paperdesk.core.library import Library
from paperdesk.tui.app import PaperDeskApp

pytestmark = pytest.mark.slow


async def test_start_lists_library_and_searches(settings, embedder):
    lib = Library(settings, embedder=embedder)
    lib.add_pdf(PAPERS / "2304.02623v1.pdf")
    lib.close()
    messages = []
    app = PaperDeskApp(settings)
    async with app.run_test(size=(120, 36), message_hook=messages.append) as pilot:
        await app.workers.wait_for_complete()
        await pilot.pause()
        table = app.query_one(DataTable)
        assert table.row_count == 1
        assert "1 paper(s)" in str(app.query_one("#status", Static).render())
        await pilot.press("slash")
        assert isinstance(app.focused, Input)
        await pilot.press(*"expository writing", "enter")
        await app.workers.wait_for_complete()
        await pilot.pause()
        done = [m for m in messages if isinstance(m, PaperDeskApp.SearchDone)]
        assert done and done[0].hits and done[0].query == "expository writing"
        assert table.row_count == len(done[0].hits)


async def test_empty_library_says_how_to_add(settings):
    app = PaperDeskApp(settings)
    async with app.run_test(size=(120, 36)) as pilot:
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert "paperdesk add" in str(app.query_one("#status", Static).render())
