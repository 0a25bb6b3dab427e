"""What the command line says is about the command at hand: an old "understood as" line goes at the next
command, and the abandon question is shown whole (a long title, [brackets] in it, at 80x24). No model."""

import html
import re

import pytest

from paperdesk.tui.screens.confirm import ConfirmScreen
from test_daily_keys import summarizing
from tui_helpers import settle, type_commands

pytestmark = pytest.mark.slow
TITLE = ("Beyond Summarization [Extended Version]: Designing AI Support for Real-World Expository Writing Tasks "
         "in Classrooms, Newsrooms and Laboratories")


def understood(app) -> str:
    line = app.command_line.query_one("#understood")
    return str(line.render()) if line.display else ""


def screen_text(app) -> str:
    svg = app.export_screenshot()
    return html.unescape(" ".join(re.findall(r">([^<]*)</text>", svg))).replace("\xa0", " ")


async def test_an_understood_line_clears_at_the_next_command(workbench):
    app = workbench(model=False)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        await pilot.press(*"what should I do next with these papers?", "enter")
        await settle(pilot, until=lambda: understood(app).startswith(("understood as", "not run")))
        await type_commands(pilot, "mode agent")
        assert understood(app) == ""
        await pilot.press("enter")  # no decision waits any more: an empty Enter runs nothing
        await settle(pilot)
        assert understood(app) == ""


async def test_the_interrupting_note_goes_once_a_command_has_finished(workbench):
    """A message that interrupts the running work says so on its "understood as" line until a command finishes
    (the interrupted one, cancelled): the line then reads as the decision alone, whichever finished first."""
    from paperdesk.core.commands.views import CommandFinished, Outcome

    app = workbench(model=False)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        app.command_line.understood("understood as improve shorter (delegate, 0.90)", interrupting=True)
        await pilot.pause()
        assert understood(app) == "understood as improve shorter (delegate, 0.90) · interrupting the running work"
        app.router.event(CommandFinished(Outcome("improve make it longer", "cancelled", "interrupted")))
        await pilot.pause()
        assert understood(app) == "understood as improve shorter (delegate, 0.90)"
        app.command_line.understood("")
        app.command_line.interruption_over()
        await pilot.pause()
        assert understood(app) == ""


@pytest.mark.parametrize("size", [(80, 24), (160, 48)])
async def test_the_abandon_question_is_shown_whole(workbench, library, size):
    pid = summarizing(library, revisions=1)
    with library.store.transaction() as conn:
        conn.execute("UPDATE papers SET title = ? WHERE id = ?", (TITLE, pid))
    app = workbench(model=False)
    async with app.run_test(size=size) as pilot:
        await settle(pilot)
        await pilot.press("ctrl+b")
        await settle(pilot, until=lambda: isinstance(app.screen, ConfirmScreen))
        await pilot.pause(0.2)
        shown = " ".join(screen_text(app).split())
        for part in ("Abandon the draft summary of", "[Extended Version]", "Laboratories'; the paper stays in",
                     "the library?"):
            assert part in shown, (part, shown)
        await pilot.press("n")
