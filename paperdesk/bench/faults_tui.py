"""Fault trials: a full disk under the workbench's Notes pane (`paperdesk bench faults --only shell`).

Each trial runs the real TUI headless (Textual's Pilot) on a library whose
disk is full: `list`, notes typed and pasted into the Notes pane of the
highlighted paper, `status`. Clean means: nothing raised, the user was told
the disk is full and that the notes are kept in memory (never "save failed"),
`status` answered, and the notes reached the disk once space was freed (by the
pane on its own, or at ctrl+q), or were printed at quit while the disk stayed
full; "lost" counts notes that were neither. The disk is a real 16 MB tmpfs
when run as root; elsewhere every SQLite write fails as a full disk does.
"""

from __future__ import annotations

import asyncio
import io
import time
from pathlib import Path
from typing import Any, Awaitable, Callable

from paperdesk.bench.faults_kill import Tally, check_home
from paperdesk.bench.faults_shell import PANE_TEXT, FullDisk

TYPED = "first thought "
WAIT = 60.0  # seconds a step may take on a loaded machine before the trial counts it as a problem


def tui_full_disk_trials(root: Path, embedder, pdf: Path, tally: Tally) -> None:
    """Notes kept then written when space is freed; written at ctrl+q after freeing; printed at quit while full."""
    trials: list[Callable[[FullDisk], Awaitable[tuple[list[str], int]]]] = [
        _pane_writes_once_space_is_free, _quit_after_freeing, _quit_while_full]
    for n, trial in enumerate(trials):
        with FullDisk.make(root / f"tui-{n}", embedder, pdf) as disk:
            try:
                problems, lost = asyncio.run(trial(disk))
            except Exception as exc:  # noqa: BLE001 - a crash is the finding
                problems, lost = [f"{type(exc).__name__}: {exc}"], 1
            disk.free()
            found, lost_papers, _ = check_home(disk.settings, embedder, {disk.paper_id})
            tally.record([f"tui {trial.__name__.strip('_')}: {p}" for p in problems + found], lost + len(lost_papers))


def workbench(disk: FullDisk) -> Any:
    """The TUI over a Desk of the full-disk library (no model is loaded)."""
    from paperdesk.core.desk.desk import Desk
    from paperdesk.tui.app import PaperDeskApp

    return PaperDeskApp(disk.settings, desk=Desk(disk.settings, embedder=disk.embedder), warm_up=False,
                        cursor_blink=False)


def said(app: Any) -> str:
    """The command line's message line."""
    return str(app.main.query_one("#command-message").render())


async def wait_for(pilot: Any, done: Callable[[], bool], timeout: float = WAIT) -> bool:
    deadline = time.monotonic() + timeout
    while not done():
        if time.monotonic() > deadline:
            return False
        await pilot.pause(0.1)
    await pilot.pause(0.05)
    return True


async def idle(pilot: Any) -> bool:
    app = pilot.app
    await pilot.pause(0.2)
    return await wait_for(pilot, lambda: app.desk is not None and not app.busy)


async def notes_on_a_full_disk(pilot: Any, disk: FullDisk) -> tuple[list[str], str]:
    """`list`, fill the disk, type and paste notes of the highlighted paper; (problems, the notes' text)."""
    from paperdesk.tui.panes.notes import NotesPane

    app = pilot.app
    await idle(pilot)
    await pilot.press(*"list", "enter")
    notes = app.main.query_one(NotesPane)
    if not await wait_for(pilot, lambda: notes.paper_id == disk.paper_id and not notes.editor.read_only):
        return ["the Notes pane did not follow the listed paper"], ""
    disk.fill()
    await pilot.press("f4", *TYPED)
    notes.editor.insert(PANE_TEXT)  # a paste: more than the room left on the real disk
    problems = []
    if not await wait_for(pilot, lambda: "disk is full" in said(app) or "failed" in said(app)):
        problems.append("the user was not told the disk is full")
    elif "failed" in said(app) or "kept in memory" not in said(app):
        problems.append(f"said {said(app)!r}, not that the notes are kept in memory")
    return problems, notes.editor.text


async def status_answers(pilot: Any) -> list[str]:
    from paperdesk.core.commands.views import CommandFinished

    app = pilot.app
    seen: list[Any] = []
    unsubscribe = app.desk.subscribe(lambda e: seen.append(e.outcome) if isinstance(e, CommandFinished) else None)
    await pilot.press("escape", *"status", "enter")
    await wait_for(pilot, lambda: bool(seen))
    unsubscribe()
    await idle(pilot)
    if type(app.screen).__name__ == "TextScreen":
        await pilot.press("escape")
    if not seen or seen[-1].status != "ok":
        return [f"status did not answer on the full disk: {seen[-1].message if seen else 'no outcome'}"]
    return []


async def _pane_writes_once_space_is_free(disk: FullDisk) -> tuple[list[str], int]:
    app = workbench(disk)
    async with app.run_test(size=(120, 36)) as pilot:
        problems, text = await notes_on_a_full_disk(pilot, disk)
        problems += await status_answers(pilot)
        disk.free()  # no command, no quit: the pane writes what the Desk kept
        if not await wait_for(pilot, lambda: disk.notes() == text):
            problems.append("the notes were not written once space was free")
        await pilot.press("ctrl+q")
        await pilot.pause(0.3)
    return problems, 0 if disk.notes() == text else 1


async def _quit_after_freeing(disk: FullDisk) -> tuple[list[str], int]:
    app = workbench(disk)
    async with app.run_test(size=(120, 36)) as pilot:
        problems, text = await notes_on_a_full_disk(pilot, disk)
        await pilot.press(*"and a last word")  # still unsaved when ctrl+q comes
        text += "and a last word"
        disk.free()
        await pilot.press("ctrl+q")
        await pilot.pause(0.3)
    if not app.desk.closed:
        problems.append("ctrl+q did not close the desk")
    return problems, 0 if disk.notes() == text else 1


async def _quit_while_full(disk: FullDisk) -> tuple[list[str], int]:
    from paperdesk.tui.launch import say_unsaved_notes

    app = workbench(disk)
    async with app.run_test(size=(120, 36)) as pilot:
        problems, text = await notes_on_a_full_disk(pilot, disk)
        problems += await status_answers(pilot)
        await pilot.press("ctrl+q")
        await pilot.pause(0.3)
    err = io.StringIO()
    say_unsaved_notes(app.desk, err)  # what `paperdesk` prints once the screen is back
    return problems, 0 if f"here they are:\n{text}\n" in err.getvalue() else 1
