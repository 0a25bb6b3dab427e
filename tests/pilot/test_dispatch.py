"""Free text from the keyboard: a decision under 0.6 waits for Enter (run) or Esc (drop).

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

        await pilot.press(*"the first one please", "enter")
        await settle(pilot, until=lambda: app.talk.awaiting is not None)
        assert app.talk.awaiting[1].command == "open 1" and app.talk.awaiting[1].confidence < 0.6
        assert "Enter runs it, Esc cancels" in str(line.render())
        await pilot.press("escape")
        await settle(pilot)
        assert app.talk.awaiting is None and app.desk.session.reader is None  # nothing ran
        assert "not run: -> open 1" in str(line.render())
        assert app.desk.talk.dialogue.turns[-1].kind == "refusal"

        await pilot.press(*"the first one please", "enter")
        await settle(pilot, until=lambda: app.talk.awaiting is not None)
        await pilot.press("enter")  # an empty command line: Enter runs the decision shown
        await settle(pilot)
        assert app.desk.session.reader is not None and app.desk.session.reader[1] == 1
        rows = [row[0] for row in app.desk.store.history(10)]
        assert "the first one please" in rows and "open 1" in rows


async def test_a_confident_message_runs_at_once_and_commands_still_complete(workbench):
    app = workbench(model=False)
    async with app.run_test(size=(120, 36)) as pilot:
        await _listed(pilot)
        await type_commands(pilot, "open the second one")
        assert app.talk.awaiting is None and app.desk.session.reader is not None
        app.command_line.input.value = ""
        await pilot.press(*"fin")
        await pilot.pause(0.3)
        assert app.command_line.input._suggestion == "find "  # completion still offers commands


async def test_throw_it_away_during_an_adds_summary_asks_in_the_dialog_and_only_y_discards(workbench, library):
    from conftest import PAPERS
    from paperdesk.core.db.desk_store import DeskStore
    from paperdesk.core.commands.session import DraftRef, Session
    from paperdesk.tui.screens.confirm import ConfirmScreen

    # what `add` leaves (no model here): a summary draft of the paper that add put into the library
    pid = library.add_pdf(PAPERS / "2304.02623v1.pdf").paper.id
    library.store.add_revision(pid, "# summary\n\n## Problem\nDraft 1.", "draft")
    session = Session(selected=pid, draft=DraftRef("summary", paper_id=pid, added_paper=True))
    DeskStore(library.store).save_session(session.to_json("draft-summary"))
    app = workbench(model=False)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        assert app.desk.state == "draft-summary"
        await pilot.press(*"throw it away", "enter")
        await settle(pilot, until=lambda: isinstance(app.screen, ConfirmScreen) or app.desk.state != "draft-summary")
        assert app.desk.state == "draft-summary" and app.desk.store.get_paper(pid) is not None
        assert isinstance(app.screen, ConfirmScreen) and "remove the paper from the library" in app.screen.question
        await pilot.press("n")
        await settle(pilot)
        assert app.desk.state == "draft-summary" and app.desk.store.get_paper(pid) is not None
        assert app.desk.talk.pending is None and app.desk.talk.dialogue.turns[-1].kind == "refusal"

        await pilot.press(*"get rid of the summary", "enter")
        await settle(pilot, until=lambda: isinstance(app.screen, ConfirmScreen) or app.desk.state != "draft-summary")
        assert isinstance(app.screen, ConfirmScreen) and app.desk.store.get_paper(pid) is not None
        await pilot.press("y")
        await settle(pilot, until=lambda: app.desk.state == "initial")
        assert app.desk.store.get_paper(pid) is None  # the yes ran abandon, and the add's paper went with it
