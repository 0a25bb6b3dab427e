"""In the workbench, a command the workflow refuses never offers to stop the running work, and never stops it.

The running work is a `find` waiting on the loopback arXiv's Retry-After (no model is loaded), in state
initial, where save and improve are refused and list is allowed.
"""

import pytest

from paperdesk.core.commands.views import CommandFinished
from tui_helpers import desk_events, settle, start_waiting_find

pytestmark = pytest.mark.slow


def message_text(app) -> str:
    return str(app.main.query_one("#command-message").render())


async def test_a_refused_command_is_refused_at_once_and_the_work_goes_on(workbench, arxiv):
    app = workbench(model=False)
    messages = []
    async with app.run_test(size=(120, 36), message_hook=messages.append) as pilot:
        await start_waiting_find(pilot, arxiv)
        for line, refusal in (("save", "refused: save is not available in initial"),
                              ("improve quote more numbers", "refused: improve is not available in initial")):
            await pilot.press(*line, "enter")
            await settle(pilot, until=lambda: refusal in message_text(app))
            assert "the running work goes on" in message_text(app)
            await pilot.press("enter")  # nothing is armed: a second Enter stops nothing
            await pilot.pause(0.5)
            assert app.busy and app.desk.busy and not desk_events(messages, CommandFinished)
            assert app.command_line.input.value == ""
        await pilot.press(*"list", "enter")  # allowed: this one asks before it stops the find
        await settle(pilot, until=lambda: "this stops the running arXiv search: Enter to go on" in message_text(app))
        await pilot.press("escape")  # clears the armed line: nothing is stopped
        await settle(pilot, until=lambda: app.command_line.input.value == "")
        await pilot.pause(0.5)
        assert app.busy and app.desk.busy and not desk_events(messages, CommandFinished)
        await pilot.press("escape")  # Esc on the empty line stops the find (rather than waiting out its retries)
        await settle(pilot, until=lambda: desk_events(messages, CommandFinished) and not app.busy)
        finished = desk_events(messages, CommandFinished)
        assert [(f.outcome.command, f.outcome.status) for f in finished] == [("find expository writing", "cancelled")]
