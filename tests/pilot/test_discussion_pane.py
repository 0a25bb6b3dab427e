"""The Discussion pane and the Memory screen from the keyboard, on the real default model.

Tiny runs (2-3 turns, short answers from SHORT_OUTPUTS) keep the model time to seconds; the tests assert
on the workflow state, the pane, the status bar and the stored discussion, never on timing.
"""

import pytest
from textual.widgets import TabbedContent

from conftest import PAPERS
from paperdesk.core.discussion import DiscussionStore
from paperdesk.core.commands.views import CommandFinished
from paperdesk.tui.panes.discussion import DiscussionPane
from paperdesk.tui.panes.reader import ReaderPane
from tui_helpers import desk_events, settle, type_commands

pytestmark = pytest.mark.slow
WAIT = 900.0  # seconds a model step may take on a loaded machine before the test gives up (not a timing assert)


async def _list_one_paper(pilot) -> None:
    """Once the Desk is open: the Expository Writing paper in the library, listed."""
    await settle(pilot)
    pilot.app.desk.library.add_pdf(PAPERS / "2304.02623v1.pdf")
    await type_commands(pilot, "list")


def _record_activity(app) -> list[str]:
    seen: list[str] = []
    original = app.status_bar.set_activity

    def record(text: str) -> None:
        seen.append(text)
        original(text)

    app.status_bar.set_activity = record
    return seen


async def test_discuss_streams_into_the_pane_and_the_memory_screen_opens_a_cited_page(workbench):
    app = workbench()
    messages = []
    async with app.run_test(size=(120, 36), message_hook=messages.append) as pilot:
        await _list_one_paper(pilot)
        activity = _record_activity(app)
        await pilot.press(*"discuss 1 --turns 2 --every 1", "enter")
        await settle(pilot, timeout=WAIT)
        outcome = desk_events(messages, CommandFinished)[-1].outcome
        assert outcome.status == "ok", outcome.message
        assert app.desk.state == "draft-discussion"
        assert app.main.query_one(TabbedContent).active == "tab-discussion"
        assert any(a.startswith("turn 1/2") for a in activity) and any(a.startswith("turn 2/2") for a in activity)
        pane = app.main.query_one(DiscussionPane)
        assert "## Turn 2:" in pane.summary and "Paper context:" in pane.summary
        assert [b.split("\n")[0] for b in pane.blocks if b.startswith("### Turn")] == ["### Turn 1/2", "### Turn 2/2"]
        assert any(b.startswith("> **Observer**") for b in pane.blocks)  # K = 1: the observer after turn 1
        # the Memory screen: search as you type, open a node, Enter on a cited fact opens its page in the Reader
        await pilot.press("f10")
        await pilot.pause(0.3)
        screen = app.screen
        assert type(screen).__name__ == "MemoryScreen"
        await settle(pilot, until=lambda: screen.graph is not None and screen.graph.entities)
        term = next(e for e in screen.graph.entities if e.type == "term" and any(o.page for o in e.observations))
        await pilot.press(*term.name[:12])
        await settle(pilot, until=lambda: screen.query_text == term.name[:12] and screen.graph is not None
                     and any(e.name == term.name for e in screen.graph.entities))
        await pilot.press("enter")  # to the node list
        index = next(i for i, e in enumerate(screen.graph.entities) if e.name == term.name)
        for _ in range(index):
            await pilot.press("down")
        await pilot.press("enter")  # open the node: its facts
        await pilot.pause(0.2)
        assert screen.entity is not None and screen.entity.name == term.name
        fact = next(i for i, o in enumerate(term.observations) if o.page)
        for _ in range(fact):
            await pilot.press("down")
        await pilot.press("enter")
        reader = app.main.query_one(ReaderPane)
        await settle(pilot, until=lambda: reader.paper_id is not None)
        assert app.screen is app.main
        assert (reader.paper_id, reader.page) == (term.observations[fact].paper_id, term.observations[fact].page)
        assert app.main.query_one(TabbedContent).active == "tab-reader"


async def test_esc_interrupts_and_the_next_start_resumes_from_the_last_finished_turn(workbench):
    app = workbench()
    messages = []
    async with app.run_test(size=(120, 36), message_hook=messages.append) as pilot:
        await _list_one_paper(pilot)
        await pilot.press(*"discuss 1 --turns 3 --every 3", "enter")
        pane = app.main.query_one(DiscussionPane)
        await settle(pilot, until=lambda: pane.turn >= 2, timeout=WAIT)  # turn 1 is stored once turn 2 is asked
        await pilot.press("escape")
        await settle(pilot)
        outcome = desk_events(messages, CommandFinished)[-1].outcome
        assert outcome.status == "cancelled" and "discuss --resume" in outcome.message
        assert app.desk.state == "draft-discussion" and not pane.running
        did = app.desk.session.draft.discussion_id
    store = DiscussionStore(app.desk.store.path)
    assert store.get(did)["status"] == "interrupted"
    done = len(store.turns(did))
    assert 1 <= done < 3

    again = workbench()  # the TUI on start continues the unfinished discussion
    async with again.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        await settle(pilot, until=lambda: store.get(did)["status"] == "finished" and not again.busy, timeout=WAIT)
        pane = again.main.query_one(DiscussionPane)
        marker = pane.blocks.index(f"*resumed after turn {done} of 3*")  # the stored turns above it
        assert [b.split("\n")[0] for b in pane.blocks[:marker] if b.startswith("### Turn")] == [
            f"### Turn {n}/3" for n in range(1, done + 1)]
        assert "## Turn 3:" in pane.summary and again.desk.state == "draft-discussion"
    assert [t.n for t in store.turns(did)] == [1, 2, 3]
    store.close()
