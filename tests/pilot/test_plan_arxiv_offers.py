"""Agent mode from the keyboard: arXiv finds are offered in the Plan pane and + adds one.

Real parts throughout: the default GGUF writes (short outputs), MiniLM and tantivy index, and the
arXiv is the loopback server (tests/arxiv_server.py) that serves the four fixture papers. The plan
comes from the rule planner ("new work on arXiv" -> library_search, arxiv_search, answer).
"""

from types import SimpleNamespace

import pytest

from paperdesk.core.research import Backends
from paperdesk.core.research.agent_actions import arxiv_offers
from paperdesk.core.research.plan import Plan
from paperdesk.core.commands.views import AgentActed, CommandFinished
from paperdesk.tui.panes.plan import OFFER_KEY, PlanPane
from tui_helpers import desk_events, settle, type_commands

pytestmark = pytest.mark.slow
QUESTION = "research is there new work on arXiv about AI support for expository writing?"


async def test_agent_mode_offers_arxiv_finds_and_plus_adds_the_first(workbench):
    app = workbench(PAPERDESK_RESEARCH_STEP_TOKENS="8", PAPERDESK_RESEARCH_STEP_TIMEOUT="600",
                    PAPERDESK_ANSWER_K="2")
    desk = app._given_desk
    desk.research_backends = Backends(desk.backend, None)  # the rule planner: the steps are known
    desk.library.add_arxiv("2302.07302v1", desk.arxiv)  # CiteSee: in the library, so never offered
    messages = []
    async with app.run_test(size=(120, 36), message_hook=messages.append) as pilot:
        await type_commands(pilot, QUESTION)
        assert desk.session.mode == "agent"
        plan = Plan.from_json(desk.session.plan)
        assert [s.tool for s in plan.steps] == ["library_search", "arxiv_search", "answer"]
        finished = desk_events(messages, CommandFinished)[-1].outcome
        assert finished.ok and "arXiv found" in finished.message and "+ in the Plan pane" in finished.message

        pane = app.main.query_one(PlanPane)
        acted = desk_events(messages, AgentActed)
        assert len(acted) == 1 and acted[0].offers == pane.offers
        ids = [arxiv_id for arxiv_id, _ in pane.offers]
        assert ids[0] == "2304.02623v1" and not any(i.startswith("2302.07302") for i in ids)
        body = str(pane.query_one("#plan-body").render())
        assert "New on arXiv (+ adds the first):" in body and "2304.02623v1  Beyond Summarization" in body
        assert str(pane.query_one("#plan-footer").render()).endswith(OFFER_KEY.strip(" ·"))

        await pilot.press("f7")
        assert app.focused is pane and pane.check_action("add_offer", ()) is True  # + is live, shown in the footer
        assert any(b.binding.key == "plus" for b in app.active_bindings.values() if b.binding.show)
        await pilot.press("plus")
        await settle(pilot, timeout=600)
        added = desk_events(messages, CommandFinished)[-1].outcome
        assert added.command == "add 2304.02623v1" and added.ok, added
        assert desk.store.find_by_arxiv("2304.02623")  # the paper landed in the library
        assert [i for i, _ in pane.offers] == ids[1:]  # + now adds the next find

        run = SimpleNamespace(run_id=desk.session.plan_run, plan=plan)
        assert "2304.02623v1" not in [i for i, _ in arxiv_offers(desk._plan_tracker, run, store=desk.store)]


async def test_without_offers_plus_is_not_in_the_footer(workbench):
    app = workbench(model=False)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        pane = app.main.query_one(PlanPane)
        await pilot.press("f7")
        assert app.focused is pane and pane.check_action("add_offer", ()) is False
        assert not any(b.binding.key == "plus" and b.binding.show for b in app.active_bindings.values())
        assert OFFER_KEY.strip(" ·") not in str(pane.query_one("#plan-footer").render())
