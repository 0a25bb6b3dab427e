"""A discussion resumed after the process was killed: the Discussion pane shows the turns stored before the
kill above the "resumed after" marker, and the status bar names the turn that runs now, not the last one done.

No model runs: the stored turns are written to the discussion store, and the core's resume is stopped before
its first new turn, so the pane gets exactly the start event a resumed run sends.
"""

import pytest

from conftest import PAPERS
from paperdesk.core.cancel import CancelToken
from paperdesk.core.discussion import DiscussionStore
from paperdesk.core.discussion.loop import Discussion
from paperdesk.core.discussion.types import Turn
from paperdesk.core.commands.views import DiscussionProgress
from paperdesk.tui.panes.discussion import DiscussionPane
from tui_helpers import settle

pytestmark = pytest.mark.slow  # the real embedding model opens the library


def _killed_after_two_turns(library, paper_id: str) -> int:
    store = DiscussionStore(library.store.path)
    try:
        did = store.create(paper_id, 10, 3, {})
        for n in (1, 2):
            store.add_turn(did, Turn(n, {}, f"What does part {n} show?", f"Part {n} shows a result [1].", [], [], [],
                                     [], 1.0, True), {})
        store.set_status(did, "running")  # a kill -9 leaves it running
    finally:
        store.close()
    return did


def _start_of_resume(library, did: int) -> DiscussionProgress:
    """The start event the core sends when it resumes `did` (stopped before the next turn asks anything)."""
    events = []
    token = CancelToken()
    token.cancel()
    discussion = Discussion(library, backend=None, prompt_cache=False)
    try:
        discussion.resume(did, on_event=events.append, cancel=token)
    finally:
        discussion.close()
    start = events[0]
    assert start.kind == "start"
    return DiscussionProgress(start.kind, start.discussion_id, start.turn, start.total, start.role, start.text,
                              dict(start.data))


async def test_resumed_discussion_shows_the_stored_turns_and_the_turn_running(workbench, library):
    paper = library.add_pdf(PAPERS / "2304.02623v1.pdf").paper
    app = workbench(model=False)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        did = _killed_after_two_turns(library, paper.id)
        start = _start_of_resume(library, did)
        app.router.event(start)
        await pilot.pause(0.3)
        pane = app.main.query_one(DiscussionPane)
        heads = [b.split("\n")[0] for b in pane.blocks]
        assert heads == ["### Turn 1/10", "**Teacher:** Part 1 shows a result [1].", "### Turn 2/10",
                         "**Teacher:** Part 2 shows a result [1].", "*resumed after turn 2 of 10*"]
        assert "What does part 1 show?" in pane.blocks[0]
        assert pane.markdown.index("Part 2 shows") < pane.markdown.index("resumed after turn 2")
        assert app.status_bar.activity.startswith("turn 3/10 · student asking")
        assert "turn 3/10" in str(pane.query_one("#discussion-header").render())

        app.router.event(DiscussionProgress("question", did, 3, 10, "student", "What does part 3 show?"))
        await pilot.pause(0.1)
        assert app.status_bar.activity.startswith("turn 3/10 · teacher answering")
        app.router.event(DiscussionProgress("answer", did, 3, 10, "teacher", "Part 3 shows a result [1]."))
        await pilot.pause(0.1)
        assert app.status_bar.activity.startswith("turn 4/10 · student asking")
