"""Whole command lines typed at full speed into every pane arrive whole, and no pane key fires meanwhile.

The panes with single-letter keys are the Reader (p f g n N o) and the Plan pane (a r b e d m +); the
others bind none, but a line typed there must arrive whole as well. Keys are sent as a terminal delivers a
fast typist or a paste: all at once (tui_helpers.type_at_full_speed). No model is loaded.
"""

import pytest
from textual import events
from textual.widgets import TabbedContent

from conftest import PAPERS
from paperdesk.core.research import Backends
from paperdesk.core.commands.views import CommandFinished
from paperdesk.tui.panes.plan import PlanPane
from paperdesk.tui.panes.reader import ReaderPane
from paperdesk.tui.screens.text import TextScreen
from test_daily_keys import summarizing
from tui_helpers import desk_events, settle, type_at_full_speed, type_commands

pytestmark = pytest.mark.slow
PAPER = "2304.02623v1"
QUESTION = "research how does CiteSee help readers track citations?"


def outcomes(messages):
    return [e.outcome for e in desk_events(messages, CommandFinished)]


async def arrived(pilot, line: str) -> str:
    """What the command line holds once the keys are handled; then it is emptied for the next line."""
    app = pilot.app
    await settle(pilot, until=lambda: app.command_line.input.value == line, timeout=10)
    value = app.command_line.input.value
    app.command_line.input.value = ""
    return value


def reader_state(reader: ReaderPane) -> tuple:
    return reader.paper_id, reader.page, reader.find_query, reader.query_one("#reader-find").display


async def test_lines_typed_fast_in_the_reader_arrive_whole_and_turn_no_page(workbench, library):
    library.add_pdf(PAPERS / f"{PAPER}.pdf")
    app = workbench(model=False)
    messages = []
    async with app.run_test(size=(120, 36), message_hook=messages.append) as pilot:
        await type_commands(pilot, "list", "open 1 2")
        reader = app.main.query_one(ReaderPane)
        await settle(pilot, until=lambda: reader.page == 2)
        before, ran = reader_state(reader), len(outcomes(messages))
        for typed, line in (("sem-search how often participants opened papers",
                             "sem-search how often participants opened papers"),
                            (":mode plan", "mode plan"),  # `:` focuses the line and is not typed
                            ("summary 1 of the paper, finding page numbers", "summary 1 of the paper, finding page numbers")):
            await pilot.press("f5")
            assert app.focused is reader.query_one("#reader-scroll")
            type_at_full_speed(pilot, typed)
            assert await arrived(pilot, line) == line
            assert reader_state(reader) == before  # no page turned (p), no find opened (f, g), no match (n)
        assert len(outcomes(messages)) == ran
        assert not [m for m in messages if isinstance(m, (ReaderPane.Said, ReaderPane.Problem))]  # o opened nothing

        await pilot.press("f5")
        type_at_full_speed(pilot, "mode plan", "enter")  # and Enter runs exactly that line
        await settle(pilot, until=lambda: len(outcomes(messages)) > ran)
        assert outcomes(messages)[-1].command == "mode plan" and app.desk.session.mode == "plan"

        await pilot.press("f5")  # a paste in the reader goes to the line too
        app.post_message(events.Paste("open 1 3"))
        assert await arrived(pilot, "open 1 3") == "open 1 3" and reader_state(reader) == before


async def test_lines_typed_fast_in_the_plan_pane_change_no_plan(workbench):
    app = workbench(model=False)
    desk = app._given_desk
    desk.research_backends = Backends(None, None)  # the rules planner: a plan without a model
    messages = []
    async with app.run_test(size=(120, 36), message_hook=messages.append) as pilot:
        await type_commands(pilot, "mode plan", QUESTION)
        pane = app.main.query_one(PlanPane)
        assert desk.state == "draft-plan" and pane.view is not None and len(pane.view.steps) == 2
        plan, ran = desk.session.plan, len(outcomes(messages))
        for typed, line in ((":step edit 1 query=human evaluation of summaries",
                             "step edit 1 query=human evaluation of summaries"),
                            ("step drop 2 and add a broader one", "step drop 2 and add a broader one"),
                            (":revise be more specific about readers", "revise be more specific about readers")):
            await pilot.press("f7")
            assert app.focused is pane
            type_at_full_speed(pilot, typed)
            assert await arrived(pilot, line) == line
            assert app.screen is app.main  # e opened no plan editor
            assert desk.session.plan == plan and desk.state == "draft-plan"  # nothing accepted, dropped, built
        assert len(outcomes(messages)) == ran

        await pilot.press("f7")
        type_at_full_speed(pilot, "step edit 1 query=human evaluation of summaries", "enter")
        await settle(pilot, until=lambda: len(outcomes(messages)) > ran)
        assert outcomes(messages)[-1].command == "step edit 1 query=human evaluation of summaries"
        assert desk.session.plan["steps"][0]["parameters"]["query"] == "human evaluation of summaries"


async def test_lines_typed_fast_in_the_other_panes_arrive_whole(workbench, library):
    """Panes without letter keys of their own: results, draft, reports, discussion (notes is an editor)."""
    library.add_pdf(PAPERS / f"{PAPER}.pdf")
    app = workbench(model=False)
    async with app.run_test(size=(120, 36)) as pilot:
        await type_commands(pilot, "list")
        line = "open 1 and find the page numbers, then go back"
        for key in ("f2", "f3", "f6", "f8"):
            await pilot.press(key)
            assert app.focused is not app.command_line.input
            type_at_full_speed(pilot, line)
            assert await arrived(pilot, line) == line


async def test_keys_after_ctrl_s_from_the_reader_reach_the_command_line(workbench, library):
    """ctrl+s saves the summary and brings the draft to the front, hiding the reader that had the focus;
    the keys typed next used to find nothing focused and were dropped."""
    summarizing(library, revisions=1)
    app = workbench(model=False)
    messages = []
    async with app.run_test(size=(120, 36), message_hook=messages.append) as pilot:
        await settle(pilot)
        reader = app.main.query_one(ReaderPane)
        reader.load_page(app.desk.session.selected, 1)
        await settle(pilot, until=lambda: reader.page == 1)
        await pilot.press("f5", "pagedown", "ctrl+s")
        await settle(pilot, until=lambda: app.desk.state == "summarized")
        assert app.main.query_one(TabbedContent).active == "tab-draft"
        await pilot.press(*"list", "enter")
        await settle(pilot)
        assert outcomes(messages)[-1].command == "list" and app.desk.state == "select-view"
        await pilot.press(*"status", "enter")
        await settle(pilot, until=lambda: isinstance(app.screen, TextScreen))
        assert outcomes(messages)[-1].command == "status"
