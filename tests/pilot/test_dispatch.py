"""Free text from the keyboard (issue 15): a decision under 0.6 waits for Enter (run) or Esc (drop).

No model is loaded (the library is filled from the loopback arXiv); MiniLM routes the messages.
"""

import pytest

from tui_helpers import settle, type_commands

pytestmark = pytest.mark.slow


async def _listed(pilot):
    app = pilot.app
    await settle(pilot)
    for pid in ("2304.02623v1", "2302.07302v1"):
        app.desk.library.add_arxiv(pid, app.desk.arxiv)
    await type_commands(pilot, "list")
    assert app.desk.state == "select-view"


async def test_a_low_confidence_decision_waits_for_enter_or_esc(workbench):
    app = workbench(model=False)
    async with app.run_test(size=(120, 36)) as pilot:
        await _listed(pilot)
        line = app.main.query_one("#understood")

        await pilot.press(*"first one please", "enter")
        await settle(pilot, until=lambda: app.talk.awaiting is not None)
        assert app.talk.awaiting[1].command == "open 1" and app.talk.awaiting[1].confidence < 0.6
        assert "Enter runs it, Esc cancels" in str(line.render())
        await pilot.press("escape")
        await settle(pilot)
        assert app.talk.awaiting is None and app.desk.session.reader is None  # nothing ran
        assert "not run: -> open 1" in str(line.render())
        assert app.desk.talk.dialogue.turns[-1].kind == "refusal"

        await pilot.press(*"first one please", "enter")
        await settle(pilot, until=lambda: app.talk.awaiting is not None)
        await pilot.press("enter")  # an empty command line: Enter runs the decision shown
        await settle(pilot)
        assert app.desk.session.reader is not None and app.desk.session.reader[1] == 1
        rows = [row[0] for row in app.desk.store.history(10)]
        assert "first one please" in rows and "open 1" in rows


async def test_a_confident_message_runs_at_once_and_commands_still_complete(workbench):
    app = workbench(model=False)
    async with app.run_test(size=(120, 36)) as pilot:
        await _listed(pilot)
        await pilot.press(*"open the second one", "enter")
        await settle(pilot)
        assert app.talk.awaiting is None and app.desk.session.reader is not None
        app.command_line.input.value = ""
        await pilot.press(*"fin")
        await pilot.pause(0.3)
        assert app.command_line.input._suggestion == "find "  # completion still offers commands
