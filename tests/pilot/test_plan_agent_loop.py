"""The agent loop in the Plan pane: each call it chose (tool, arguments, why) and the done that ended it.

The loop's model is ScriptedFakeLLM and the writer FakeLLM (tests/fake_llm.py), FAKES named as such: this
is about what the pane shows of the loop's decisions, not about what a model writes. The library (MiniLM,
tantivy, SQLite) and the workbench are real.
"""

import json

import pytest

from conftest import PAPERS
from fake_llm import FakeLLM, ScriptedFakeLLM
from paperdesk.core.commands.views import CommandFinished, PlanUpdated
from paperdesk.core.research import Backends
from paperdesk.tui.panes.plan import PlanPane
from paperdesk.tui.panes.plan_trace import HEADING
from tui_helpers import desk_events, settle, type_commands

pytestmark = pytest.mark.slow
QUESTION = "research how does CiteSee help readers track citations on smartwatches?"


def choice(action: str, query: str = "", why: str = "") -> str:
    return json.dumps({"action": action, "query": query, "paper": "", "why": why})


async def test_the_plan_pane_shows_each_call_the_loop_chose_and_its_done(workbench):
    writer = FakeLLM("CiteSee marks the citations a reader has already seen.")
    app = workbench(backend=writer, PAPERDESK_RESEARCH_MAX_EXTRA_CALLS="3", PAPERDESK_ANSWER_K="2")
    desk = app._given_desk
    plan = json.dumps({"steps": [{"tool": "library_search", "query": "CiteSee track citations"},
                                 {"tool": "answer", "query": "How does CiteSee help readers track citations?"}]})
    loop_model = ScriptedFakeLLM([plan, choice("library_search", "citation history", "see past reading"),
                                  choice("library_search", "paper familiarity", "how familiar papers look"),
                                  choice("done", why="the passages cover it")])
    desk.research_backends = Backends(writer, loop_model, "scripted")  # it plans (a known plan), then chooses
    desk.library.add_pdf(PAPERS / "2302.07302v1.pdf")
    messages = []
    async with app.run_test(size=(140, 40), message_hook=messages.append) as pilot:
        await type_commands(pilot, QUESTION)
        await settle(pilot, timeout=300)
        finished = desk_events(messages, CommandFinished)[-1].outcome
        assert finished.ok and "2 agent calls" in finished.message, finished.message
        live = [e.view.trace for e in desk_events(messages, PlanUpdated) if e.view.trace]
        assert list(dict.fromkeys(len(t) for t in live)) == [1, 2, 3]  # a line per decision, as the run goes
        pane = app.main.query_one(PlanPane)
        assert len(pane.view.trace) == 3  # kept once the run has finished
        body = str(pane.query_one("#plan-body").render())
        assert HEADING in body
        assert "agent call library_search query='citation history' (why: see past reading) -> COMPLETED" in body
        assert "agent call library_search query='paper familiarity' (why: how familiar papers look)" in body
        assert "after step 1: agent loop done (model: the passages cover it)" in body
        report = desk.draft_view().text
        assert "agent loop done (model: the passages cover it)" in report  # the report's trace says the same
