"""A full disk under the shell, the TUI's notes writer and the crash log: nothing crashes, no note is lost.

The disk is a real small tmpfs where the test may mount one (root); elsewhere
every SQLite write fails as a full disk does ("database or disk is full").
"""

from __future__ import annotations

import io

import pytest

from conftest import PAPERS
from paperdesk.bench.faults_shell import PANE_TEXT, FullDisk, ScriptInput
from paperdesk.core.desk.notes_keeper import NotesNotSaved

PAPER = PAPERS / "2302.07302v1.pdf"


@pytest.fixture
def full_disk(tmp_path, embedder):
    """(settings of a library holding one paper, a FullDisk that fills and frees its disk)."""
    with FullDisk.make(tmp_path, embedder, PAPER) as disk:
        yield disk


def _shell(disk: FullDisk, script: ScriptInput) -> tuple[int, str, str]:
    from paperdesk.shell import run_shell

    out, err = io.StringIO(), io.StringIO()
    code = run_shell(disk.settings, keep_going=True, stdin=script, out=out, err=err)
    return code, out.getvalue(), err.getvalue()


def test_shell_on_a_full_disk_keeps_notes_and_saves_them_once_space_is_free(full_disk):
    full_disk.fill()
    script = ScriptInput("list\nopen 1\nnotes first thought\nstatus\nnotes second thought\n# free\nstatus\nquit\n",
                         {"# free": full_disk.free})
    code, out, err = _shell(full_disk, script)
    assert "Traceback" not in out + err
    assert "the disk is full" in err and "kept in memory" in err
    assert out.count("state: select-view") == 2  # status ran on the full disk and after
    assert "> quit" in out
    assert full_disk.notes() == "first thought\nsecond thought"


def test_shell_quit_on_a_still_full_disk_prints_the_unsaved_notes(full_disk):
    full_disk.fill()
    code, out, err = _shell(full_disk, ScriptInput("list\nopen 1\nnotes keep me\nquit\n"))
    assert "Traceback" not in out + err
    assert "could not be saved; here they are:\nkeep me\n" in err
    full_disk.free()
    assert full_disk.notes() == ""


def test_editor_notes_on_a_full_disk_are_written_at_close(full_disk):
    """The TUI's Notes pane saves through Desk.save_notes; ctrl+q closes the desk after space is freed."""
    from paperdesk.core.desk.desk import Desk

    desk = Desk(full_disk.settings, embedder=full_disk.embedder)
    paper = desk.store.list_papers()[0].id
    full_disk.fill()
    with pytest.raises(NotesNotSaved, match="kept in memory"):
        desk.save_notes(paper, PANE_TEXT).result()
    assert desk.notes(paper) == PANE_TEXT  # what the pane shows when it reloads
    full_disk.free()
    desk.close()
    assert desk.unsaved_notes == {}
    assert full_disk.notes() == PANE_TEXT


def test_a_crash_log_that_cannot_be_written_does_not_fail_the_command(settings, embedder, monkeypatch):
    from paperdesk.core.desk.desk import Desk
    from paperdesk.core.handlers import HANDLERS

    def broken(desk, command):
        raise RuntimeError("a bug")

    monkeypatch.setitem(HANDLERS, "status", broken)
    (settings.home / "paperdesk.log").mkdir(parents=True)  # any write to it fails, as on a full disk
    desk = Desk(settings, embedder=embedder)
    try:
        outcome = desk.run("status")
        assert outcome.status == "error" and "internal error in status: RuntimeError: a bug" in outcome.message
        assert "could not be written" in outcome.message
        assert "no details logged" in desk.run("status").message  # said once, not again
    finally:
        desk.close()


def test_shell_survives_a_command_that_raises(settings, embedder, monkeypatch):
    """Even an error outside the command's guard (here: saving the session) is one line, and the shell goes on."""
    from paperdesk.core.desk.desk import Desk
    from paperdesk.shell import run_shell

    desk = Desk(settings, embedder=embedder)
    monkeypatch.setattr(desk, "_record", lambda outcome: (_ for _ in ()).throw(OSError(5, "I/O error")))
    out, err = io.StringIO(), io.StringIO()
    try:
        code = run_shell(settings, keep_going=True, stdin=io.StringIO("status\nhelp\nquit\n"), out=out, err=err,
                         desk=desk)
    finally:
        monkeypatch.undo()
        desk.close()
    assert "Traceback" not in err.getvalue() and "I/O error" in err.getvalue()
    assert "> quit" in out.getvalue() and code == 1


def test_the_bench_trials_run_clean(tmp_path, embedder):
    from paperdesk.bench.faults_kill import Tally
    from paperdesk.bench.faults_shell import shell_full_disk_trials

    tally = Tally("full disk in the shell")
    shell_full_disk_trials(tmp_path, embedder, PAPER, tally)
    assert tally.tries >= 3 and tally.clean == tally.tries, tally.problems
