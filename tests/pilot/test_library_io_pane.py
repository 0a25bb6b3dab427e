"""Papers in and out from inside the app: remove asks first, tags and list filters, export and import.

Real library (fixture papers through the loopback arXiv), no model.
"""

import shutil

import pytest
from textual.widgets import DataTable

from paperdesk.tui.app import PaperDeskApp
from paperdesk.tui.screens.confirm import ConfirmScreen
from paperdesk.tui.screens.text import TextScreen
from settings_for import NO_MODEL, settings_for
from tui_helpers import settle, type_commands

pytestmark = pytest.mark.slow
CITESEE, LEGAL = "2302.07302v1", "2304.02623v1"


@pytest.fixture(scope="module")
def library_home(library_of):
    return library_of(LEGAL, CITESEE)


@pytest.fixture
def app(tmp_path, library_home, arxiv, monkeypatch):
    home = tmp_path / "home"
    shutil.copytree(library_home, home)
    monkeypatch.chdir(tmp_path)
    return PaperDeskApp(settings_for(home, arxiv.api_url, **NO_MODEL), warm_up=False, cursor_blink=False)


def said(app) -> str:
    return str(app.main.query_one("#command-message").render())


async def test_remove_asks_first_and_no_keeps_the_paper(app):
    async with app.run_test(size=(120, 36)) as pilot:
        await type_commands(pilot, "list")
        await pilot.press(*"remove 1", "enter")
        await settle(pilot, until=lambda: isinstance(app.screen, ConfirmScreen))
        assert f"Remove {LEGAL} (" in app.screen.question
        await pilot.press("n")
        await settle(pilot)
        assert app.desk.store.get_paper(LEGAL) is not None and said(app) == "nothing removed"
        await pilot.press(*"remove 1", "enter")
        await settle(pilot, until=lambda: isinstance(app.screen, ConfirmScreen))
        await pilot.press("y")
        await settle(pilot)
        assert app.desk.store.get_paper(LEGAL) is None
        assert f"removed {LEGAL}" in said(app)
        assert app.main.query_one("#results-table", DataTable).row_count == 1  # the list is renumbered


async def test_tags_filter_the_list_and_export_import_run_in_the_app(app, tmp_path):
    async with app.run_test(size=(120, 36)) as pilot:
        await type_commands(pilot, "list", "tag 2 to-read")
        app.sync_library()  # the library sync's timer may tick at any point: a filtered list keeps its filter
        await type_commands(pilot, "list --tag to-read")
        assert [item.id for item in app.desk.session.results] == [CITESEE]
        assert "tag to-read" in app.main.query_one("ResultsPane").border_title
        await type_commands(pilot, "list --sort title --reverse")
        titles = [item.title for item in app.desk.session.results]
        assert titles == sorted(titles, key=str.casefold, reverse=True)
        await type_commands(pilot, "export bibtex --all --out lib.bib")
        assert f"exported 2 BibTeX entries (the whole library) to {tmp_path / 'lib.bib'}" == said(app)
        bib = (tmp_path / "lib.bib").read_text()
        assert "keywords = {to-read}" in bib and "eprint = {2302.07302v1}" in bib
        (tmp_path / "more.bib").write_text(bib + "@book{nope, title = {No ids}}\n")
        await type_commands(pilot, "import bibtex more.bib")
        assert "0 added, 2 already in the library, 1 skipped" in said(app)
        assert isinstance(app.screen, TextScreen) and "skipped nope: no arXiv id" in app.screen.text
