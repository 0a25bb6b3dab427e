"""Interrupting research with a message and going on with it: the message steers the resumed run.

Real library, embeddings and loopback arXiv; generation from FakeLLM because this is orchestration only
(which command the message becomes, which prompts of the resumed run carry the message).
"""


import pytest

from desk_helpers import run_in_background, wait_until
from fake_llm import FakeLLM
from paperdesk.core.desk.desk import Desk
from paperdesk.core.dispatch.talk import Understood
from paperdesk.core.handlers.plans import tracker
from paperdesk.core.research import Backends
from paperdesk.core.commands.views import CommandStarted
from settings_for import settings_for

pytestmark = pytest.mark.slow


@pytest.fixture
def desk(tmp_home, arxiv, embedder):
    fake = FakeLLM(" ".join(["word"] * 400))  # pure orchestration stand-in, not a model
    d = Desk(settings_for(tmp_home, arxiv.api_url), backend=fake, embedder=embedder)
    d.research_backends = Backends(fake, None)  # plans from the rule planner: no planner model to wait for
    d.fake = fake
    yield d
    d.close()


def _start_research(desk):
    assert desk.run("find expository writing").ok
    assert desk.run("summarize 1").ok and desk.run("save").ok  # one paper in the library to research
    desk.fake.delay = 0.01  # slow tokens, so the message lands inside a research step
    worker, box = run_in_background(desk, "research how is expository writing supported")
    # the run is recorded (resumable) and a step's model call is streaming
    assert wait_until(lambda: bool(tracker(desk).unfinished()), 60.0, step=0.01)
    n = len(desk.fake.requests)
    assert wait_until(lambda: len(desk.fake.requests) > n, 60.0, step=0.01)
    return worker, box


def test_a_message_during_research_interrupts_it_and_the_resumed_run_carries_the_message(desk):
    seen = []
    desk.subscribe(lambda e: seen.append(e) if isinstance(e, Understood) else None)
    worker, box = _start_research(desk)
    starts = []  # where the resumed run's requests begin
    desk.subscribe(lambda e: starts.append(len(desk.fake.requests))
                   if isinstance(e, CommandStarted) and e.command == "research --resume" else None)
    desk.subscribe(lambda e: setattr(desk.fake, "delay", 0.0) if isinstance(e, Understood) else None)
    outcome = desk.talk.submit("focus on the evaluation")
    worker.join(60)
    assert box and box[0].status == "cancelled"
    assert seen[0].interrupting and seen[-1].decision.command == "research --resume", seen[-1].line
    assert seen[-1].decision.action == "delegate"
    assert outcome.ok, outcome.message
    assert desk.state == "draft-research" and not tracker(desk).unfinished()
    assert len(starts) == 1
    # a request of the cancelled run can still land after the resume began: its token was cancelled
    later = zip(desk.fake.requests[starts[0]:], desk.fake.tokens[starts[0]:])
    resumed = [r.prompt for r, token in later if not (token is not None and token.cancelled)]
    assert resumed and all("User: focus on the evaluation" in p for p in resumed)
    assert [t.text for t in desk.talk.dialogue.turns if t.role == "user"] == ["focus on the evaluation"]


@pytest.mark.parametrize("message", ["go on with the research", "resume the research", "continue"])
def test_after_esc_the_user_can_ask_to_go_on_with_the_research(desk, message):
    worker, box = _start_research(desk)
    desk.fake.delay = 0.0
    assert desk.cancel()
    worker.join(60)
    assert box[0].status == "cancelled" and tracker(desk).unfinished()
    decision = desk.talk.understand(message)
    assert decision.command == "research --resume", decision.to_json()
    assert desk.talk.submit(message).ok and not tracker(desk).unfinished()
