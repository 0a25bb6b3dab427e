"""An answer that stands, but whose cited passages the writer could not confirm on a second reading, is shown
in the Draft pane with its note, and the command's message says so.

Real library (the CiteSee fixture paper, real embedder); the writer is StandInCheckingLLM, NOT a model: it
copies a sentence of a window the answer reads, and gives its check canned margins below the firm threshold.
"""

import pytest

from checked_answers import StandInCheckingLLM, copied_sentence
from paperdesk.core.agents import answer_check
from paperdesk.core.agents.answer_result import UNSURE
from paperdesk.core.commands.views import CommandFinished
from paperdesk.tui.app import PaperDeskApp
from paperdesk.tui.panes.draft import DraftPane
from tui_helpers import desk_events, screen_text, type_commands

pytestmark = pytest.mark.slow
QUESTION = "What do CiteSee's citation markers show the reader?"


async def test_an_unsure_answer_shows_its_note_under_the_answer(citesee_desk):
    probe = citesee_desk(PAPERDESK_MEMORY_RECALL="0")
    draft, _ = copied_sentence(probe.library, QUESTION)
    weak = (answer_check.MARGIN_MIN + answer_check.FIRM_MIN) / 4
    desk = citesee_desk(backend=StandInCheckingLLM([draft], [weak, weak]), PAPERDESK_MEMORY_RECALL="0")
    app = PaperDeskApp(desk.settings, desk=desk, warm_up=False, cursor_blink=False)
    messages = []
    async with app.run_test(size=(120, 40), message_hook=messages.append) as pilot:
        await type_commands(pilot, f"sem-search {QUESTION}")
        finished = desk_events(messages, CommandFinished)[-1].outcome
        assert finished.ok and "unsure: check the pages it cites" in finished.message
        pane = app.main.query_one(DraftPane)
        source = pane.body.source
        assert UNSURE in source and source.index(draft.rsplit(" [", 1)[0]) < source.index(UNSURE)
        assert "Unsure: reading the passages it cites again" in " ".join(screen_text(app).split())
