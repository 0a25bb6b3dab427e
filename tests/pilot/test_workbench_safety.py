"""The workbench never loses or hides what the user did: notes races, pane worker failures, quitting mid-command."""

import pytest

from textual.widgets import Input

from conftest import PAPERS
from paperdesk.core.db.desk_store import DeskStore
from paperdesk.core.commands.session import DraftRef, Session
from paperdesk.core.db.store import Store
from paperdesk.core.commands.views import CommandFinished, TokenStreamed
from paperdesk.tui.panes import notes as notes_module
from paperdesk.tui.panes.notes import NotesPane
from paperdesk.tui.panes.reader import ReaderPane
from paperdesk.tui.screens.confirm import ConfirmScreen
from tui_helpers import desk_events, settle, type_commands

pytestmark = pytest.mark.slow
PAPER = "2304.02623v1"


def summarizing(library) -> str:
    """A stored session in draft-summary on a library paper, as a summarize would leave it (no model needed)."""
    pid = library.add_pdf(PAPERS / f"{PAPER}.pdf").paper.id
    library.store.add_revision(pid, "# summary\n\n## Problem\nA draft.", "draft")
    session = Session(selected=pid, draft=DraftRef("summary", paper_id=pid))
    DeskStore(library.store).save_session(session.to_json("draft-summary"))
    return pid


async def test_an_unsaved_edit_and_a_notes_command_both_survive(workbench, library, monkeypatch):
    pid = summarizing(library)
    monkeypatch.setattr(notes_module, "AUTOSAVE_DELAY", 60.0)  # the edit is still unsaved when the command runs
    app = workbench(model=False)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        assert app.desk.state == "draft-summary"
        pane = app.main.query_one(NotesPane)
        await pilot.press("f4", *"edited in the pane")
        await pilot.press("escape")
        assert isinstance(app.focused, Input)
        await type_commands(pilot, "notes appended by command")
        await settle(pilot, until=lambda: "appended by command" in app.desk.drafts.notes(pid))
        await pilot.pause(0.3)
        stored = app.desk.drafts.notes(pid)
        assert stored == "edited in the pane\nappended by command"
        assert pane.editor.text == stored  # what the pane shows is what is stored


async def test_a_pane_worker_failure_reaches_the_command_line(workbench):
    app = workbench(model=False)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        app.main.query_one(ReaderPane).find_in_paper("2304.99999v1", "anything", 0)  # a paper no longer there
        message = app.main.query_one("#command-message")
        await settle(pilot, until=lambda: message.has_class("error"))
        text = str(message.render())
        assert "find_in_paper failed" in text and "2304.99999v1" in text and "\n" not in text


async def test_quit_mid_generation_stores_the_interrupted_revision_and_closes_the_desk(workbench):
    app = workbench(PAPERDESK_SUMMARY_SECTION_TOKENS="400", PAPERDESK_SUMMARY_MAP_TOKENS="400")
    messages = []
    async with app.run_test(size=(120, 36), message_hook=messages.append) as pilot:
        await type_commands(pilot, "find expository writing")
        await pilot.press(*"summarize 1", "enter")
        await settle(pilot, until=lambda: len(desk_events(messages, TokenStreamed)) > 1)  # the title, then a checked sentence
        await pilot.press("ctrl+q")
        await settle(pilot, until=lambda: isinstance(app.screen, ConfirmScreen))  # work is running: asked first
        await pilot.press("y")
        await settle(pilot, until=lambda: app.desk.closed)
    assert app.desk.closed
    assert [o.status for o in (e.outcome for e in desk_events(messages, CommandFinished))][-1] == "cancelled"
    store = Store(app.settings.home / "library.sqlite")
    revision = store.current_revision(PAPER)
    assert revision is not None and revision.status == "interrupted"
    store.close()
