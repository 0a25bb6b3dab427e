"""No dead ends: a library kept in sync with other processes, papers in by `add`, summaries of
library papers, `close`, and notes that follow the paper being read."""

import asyncio
import os
import subprocess
import sys
from pathlib import Path

import pytest
from textual.widgets import DataTable

from conftest import PAPERS
from paperdesk.core.commands.views import CommandFinished, GenerationStarted, ProgressUpdated
from paperdesk.tui.panes.notes import NotesPane
from paperdesk.tui.panes.reader import ReaderPane
from paperdesk.tui.screens.confirm import ConfirmScreen
from tui_helpers import desk_events, settle, type_commands

pytestmark = pytest.mark.slow
ROOT = Path(__file__).resolve().parents[2]


def outcomes(messages):
    return [e.outcome for e in desk_events(messages, CommandFinished)]


async def start_then_stop(pilot, messages, line: str) -> None:
    """Run `line` and press Esc as soon as the model starts writing: the flow is under test, not the prose."""
    await settle(pilot)
    started = len(desk_events(messages, GenerationStarted))
    await pilot.press(*line, "enter")
    await settle(pilot, until=lambda: len(desk_events(messages, GenerationStarted)) > started)
    await pilot.press("escape")
    await settle(pilot)


def paperdesk_add(path: Path) -> subprocess.CompletedProcess:
    """`paperdesk add FILE` in another process, on the same data dir (PAPERDESK_HOME from tmp_home)."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run([sys.executable, "-m", "paperdesk", "add", str(path)], env=env, capture_output=True,
                          text=True, timeout=600)


async def test_a_paper_another_process_adds_shows_up_and_sem_search_finds_it(workbench, library):
    library.add_pdf(PAPERS / "2304.02623v1.pdf")
    app = workbench()  # the real model writes sem-search's (short) answer
    messages = []
    async with app.run_test(size=(120, 36), message_hook=messages.append) as pilot:
        await type_commands(pilot, "list")
        table = app.main.query_one("#results-table", DataTable)
        assert table.row_count == 1
        done = await asyncio.to_thread(paperdesk_add, PAPERS / "2302.07302v1.pdf")
        assert done.returncode == 0, done.stderr
        added = done.stdout.split()[1]  # "added <id>  <title> ..."
        await settle(pilot, until=lambda: table.row_count == 2)  # the list noticed, without a command
        assert added in [item.id for item in app.desk.session.results]
        await start_then_stop(pilot, messages, "sem-search how do readers keep track of citations")
        assert app.desk.state == "draft-sem-search", outcomes(messages)[-1]
        assert added in [item.id for item in app.desk.session.results]  # the reloaded indexes found it


async def test_add_a_local_file_named_like_an_arxiv_id_then_abandon_removes_it(workbench):
    app = workbench()
    messages = []
    async with app.run_test(size=(120, 36), message_hook=messages.append) as pilot:
        await start_then_stop(pilot, messages, f"add {PAPERS / '2304.02623v1.pdf'}")
        desk = app.desk
        assert desk.state == "draft-summary" and desk.session.selected == "2304.02623v1"
        paper = desk.store.get_paper("2304.02623v1")
        assert paper.arxiv_id == "2304.02623" and paper.abstract  # recognised: arXiv's metadata filled in
        assert outcomes(messages)[-1].message.startswith("added 2304.02623v1; ")
        await pilot.press(*"abandon", "enter")
        await settle(pilot, until=lambda: isinstance(app.screen, ConfirmScreen))
        assert "remove the paper from the library" in app.screen.question
        await pilot.press("y")
        await settle(pilot, until=lambda: desk.state == "initial")
        assert desk.store.get_paper("2304.02623v1") is None


async def test_summarize_a_library_paper_from_the_list_and_close(workbench, library):
    pid = library.add_pdf(PAPERS / "2304.02623v1.pdf").paper.id
    app = workbench()
    messages = []
    async with app.run_test(size=(120, 36), message_hook=messages.append) as pilot:
        await type_commands(pilot, "list")
        await start_then_stop(pilot, messages, "summarize 1")
        desk = app.desk
        assert desk.state == "draft-summary" and desk.session.selected == pid
        await type_commands(pilot, "save", "close")
        assert desk.state == "initial" and desk.session.selected is None and desk.session.draft is None
        await type_commands(pilot, "list", "summarize 1")  # the summary is saved: nothing new to start
        assert "already has a saved summary" in str(app.main.query_one("#command-message").render())
        await type_commands(pilot, "close")
        assert desk.state == "initial" and desk.session.results == []
        assert app.main.query_one("#results-table", DataTable).row_count == 0
        assert desk.store.current_revision(pid).status == "final"  # close keeps everything stored


async def test_notes_follow_the_paper_in_the_reader_and_the_list(workbench, library):
    first = library.add_pdf(PAPERS / "2304.02623v1.pdf").paper.id
    second = library.add_pdf(PAPERS / "2302.07302v1.pdf").paper.id
    app = workbench(model=False)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        app.desk.save_notes(second, "second paper's note").result()
        await type_commands(pilot, "list")
        rows = [item.id for item in app.desk.session.results]
        notes = app.main.query_one(NotesPane)
        await pilot.press("f2", "down")  # highlight the second row
        await settle(pilot, until=lambda: notes.paper_id == rows[1])
        assert not notes.editor.read_only
        number = rows.index(second) + 1
        await type_commands(pilot, f"open {number}")
        reader = app.main.query_one(ReaderPane)
        await settle(pilot, until=lambda: reader.paper_id == second and notes.paper_id == second)
        assert notes.editor.text == "second paper's note"
        await pilot.press("f4", "end", *" and more")
        await settle(pilot, until=lambda: app.desk.drafts.notes(second) == "second paper's note and more")
        await pilot.press("escape")
        await type_commands(pilot, "notes from the command line")  # notes = the paper open in the reader
        assert app.desk.drafts.notes(second).endswith("from the command line")
        assert app.desk.drafts.notes(first) == ""


async def test_add_a_folder_shows_its_progress_and_esc_keeps_the_papers_added(workbench, tmp_path):
    import shutil

    folder = tmp_path / "to read"
    folder.mkdir()
    # in this order: a short paper, then a long one (Esc lands while it is added), then another
    for name, paper in (("a.pdf", "2304.02623v1.pdf"), ("b.pdf", "2302.07302v1.pdf"), ("c.pdf", "papermage.pdf")):
        shutil.copyfile(PAPERS / paper, folder / name)
    app = workbench(model=False)
    messages: list = []

    def first_added() -> bool:
        return app.desk.store.count_papers() >= 1

    async with app.run_test(size=(160, 40), message_hook=messages.append) as pilot:
        await settle(pilot)
        await pilot.press(*f"add '{folder}'", "enter")
        await settle(pilot, until=first_added)
        await pilot.press("escape")  # the line is empty: Esc stops the work
        await settle(pilot)
        shown = [e.progress for e in desk_events(messages, ProgressUpdated)]  # what the status bar was told
        assert any(p.stage == "add" and p.total == 3 and p.detail.startswith(("a.pdf", "b.pdf")) for p in shown)
        said = str(app.main.query_one("#command-message").render())
        kept = app.desk.store.count_papers()
        assert app.desk.library.integrity_problems() == []
        if kept < 3:  # stopped in time (the usual case): it says so, and the same add goes on
            assert said.startswith("cancelled:") and "run the same add again" in said
            assert "added a.pdf" in getattr(app.screen, "text", "").replace(str(folder) + "/", "")
        await pilot.press("escape")
        await type_commands(pilot, f"add '{folder}'")  # again: the rest is added, nothing twice
        said = str(app.main.query_one("#command-message").render())
        assert f"{kept} already in the library" in said
        assert app.desk.store.count_papers() == 3 and app.desk.state == "initial"
