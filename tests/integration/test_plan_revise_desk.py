"""`revise` through the Desk: a refusal is one line saying what revise understands and proposes nothing;
"focus on that" takes its words from the user's message in the dialogue the Desk keeps.

The plan comes from the rule planner and nothing runs, so the writer is FakeLLM (tests/fake_llm.py), a
stand-in text generator that is never called here; the embedding model is the real session one.
"""

from __future__ import annotations

import pytest

from fake_llm import FakeLLM
from paperdesk.core.desk.desk import Desk
from paperdesk.core.research import Backends
from paperdesk.core.research.revise import UNDERSTANDS
from settings_for import settings_for

pytestmark = pytest.mark.slow  # the Desk loads the real embedding model


@pytest.fixture
def desk(tmp_path, embedder):
    d = Desk(settings_for(tmp_path / "home"), backend=FakeLLM(), embedder=embedder)
    d.research_backends = Backends(d.backend, None)  # rules plan: no planner model here
    yield d
    d.close()


def test_revise_refuses_what_it_does_not_understand_and_reads_that_from_the_dialogue(desk):
    assert desk.run("mode plan").ok and desk.run("research how does CiteSee help readers track citations?").ok
    plan = dict(desk.session.plan)
    outcome = desk.run("revise make it better")
    assert outcome.status == "error" and "\n" not in outcome.message
    assert "revise did not understand 'make it better'; nothing changed" in outcome.message
    assert UNDERSTANDS in outcome.message
    assert desk.session.plan == plan and desk.session.plan_pending is None and desk.state == "draft-plan"

    desk.talk.dialogue.receive("the eye-tracking study")  # the user's own words, as the dispatcher records them
    assert desk.run("revise focus on that").ok
    pending = desk.session.plan_pending
    assert pending["steps"][0]["parameters"]["query"] == "eye-tracking study CiteSee help readers"
    assert desk.session.plan == plan  # a proposal until accept
    assert desk.run("accept").ok and desk.session.plan["steps"][0]["parameters"]["query"].startswith("eye-tracking")
