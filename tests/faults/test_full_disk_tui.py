"""A full disk under the workbench: notes typed in the Notes pane are kept in memory, the user is told the disk
is full, `status` still answers, and the notes are written once space is free (at the latest at ctrl+q).

The disk is a real small tmpfs where the test may mount one (root); elsewhere every SQLite write fails as a
full disk does ("database or disk is full"). The pasted text is more than the room left on the real disk.
"""

from __future__ import annotations

import io

import pytest

from conftest import PAPERS
from paperdesk.bench.faults_shell import PANE_TEXT, FullDisk
from paperdesk.core.commands.views import CommandFinished
from paperdesk.tui.panes import notes as notes_module
from paperdesk.tui.panes.notes import NotesPane
from tui_helpers import desk_events, settle, type_commands

pytestmark = pytest.mark.slow  # the real embedding model opens the library
PAPER = PAPERS / "2302.07302v1.pdf"


@pytest.fixture
def full_disk(tmp_path, embedder):
    with FullDisk.make(tmp_path, embedder, PAPER) as disk:
        yield disk


def _app(disk: FullDisk):
    from paperdesk.core.desk.desk import Desk
    from paperdesk.tui.app import PaperDeskApp

    return PaperDeskApp(disk.settings, desk=Desk(disk.settings, embedder=disk.embedder), warm_up=False)


async def _notes_on_a_full_disk(pilot, disk: FullDisk) -> tuple[NotesPane, str]:
    """List the library, fill the disk, type and paste notes of the highlighted paper; (the pane, its text)."""
    app = pilot.app
    await type_commands(pilot, "list")
    notes = app.main.query_one(NotesPane)
    await settle(pilot, until=lambda: notes.paper_id == disk.paper_id and not notes.editor.read_only)
    disk.fill()
    await pilot.press("f4", *"first thought ")
    notes.editor.insert(PANE_TEXT)  # a paste
    await settle(pilot, until=lambda: "disk is full" in _said(app))
    return notes, notes.editor.text


def _said(app) -> str:
    return str(app.main.query_one("#command-message").render())


async def test_notes_pane_on_a_full_disk_says_so_and_writes_the_notes_once_space_is_free(full_disk):
    app = _app(full_disk)
    messages = []
    async with app.run_test(size=(120, 36), message_hook=messages.append) as pilot:
        notes, text = await _notes_on_a_full_disk(pilot, full_disk)
        said = _said(app)
        assert "the disk is full" in said and "kept in memory" in said and "failed" not in said, said
        assert "kept in memory" in str(notes.query_one("#notes-footer").render())
        assert app.desk.notes(full_disk.paper_id) == text  # what the pane shows when it reloads

        await pilot.press("escape")  # back to the command line
        await type_commands(pilot, "status")
        outcome = desk_events(messages, CommandFinished)[-1].outcome
        assert outcome.command == "status" and outcome.status == "ok", outcome.message
        assert type(app.screen).__name__ == "TextScreen"  # the whole status, on the full disk
        await pilot.press("escape")

        full_disk.free()  # no command, no quit: the pane writes the kept notes by itself
        await settle(pilot, until=lambda: full_disk.notes() == text, timeout=30)
        await settle(pilot, until=lambda: "saved" in _said(app))
        assert "saved as you type" in str(notes.query_one("#notes-footer").render())


async def test_notes_kept_on_a_full_disk_are_written_at_quit_once_space_is_free(full_disk, monkeypatch):
    monkeypatch.setattr(notes_module, "RETRY_SECONDS", 3600.0, raising=False)  # only quitting writes them
    app = _app(full_disk)
    async with app.run_test(size=(120, 36)) as pilot:
        _, text = await _notes_on_a_full_disk(pilot, full_disk)
        await pilot.press("f4", *"and a last word")  # still unsaved when ctrl+q comes
        full_disk.free()
        await pilot.press("ctrl+q")
        await pilot.pause(0.5)
    assert app.desk.closed and app.desk.unsaved_notes == {}
    assert full_disk.notes() == text + "and a last word"


async def test_quit_on_a_still_full_disk_prints_the_notes(full_disk):
    from paperdesk.tui.launch import say_unsaved_notes

    app = _app(full_disk)
    async with app.run_test(size=(120, 36)) as pilot:
        _, text = await _notes_on_a_full_disk(pilot, full_disk)
        await pilot.press("ctrl+q")
        await pilot.pause(0.5)
    err = io.StringIO()
    say_unsaved_notes(app.desk, err)
    assert f"could not be saved; here they are:\n{text}\n" in err.getvalue()


def test_the_bench_trials_run_clean(tmp_path, embedder):
    from paperdesk.bench.faults_kill import Tally
    from paperdesk.bench.faults_tui import tui_full_disk_trials

    tally = Tally("full disk in the TUI notes")
    tui_full_disk_trials(tmp_path, embedder, PAPER, tally)
    assert tally.tries == 3 and tally.clean == tally.tries, tally.problems
