"""A full plan-mode cycle started from free text: the research message, `build`, `save`.

The dialogue must reach the planner (plan), every step answer (do) and the check's re-asked answers,
and be empty after the act (`save`). Real library, embeddings and loopback arXiv; the text comes from
FakeLLM because this is pure orchestration (which prompts carry the "User dialogue" block).
"""

import pytest

from fake_llm import FakeLLM
from paperdesk.core.desk.desk import Desk
from paperdesk.core.dispatch.talk import Understood
from paperdesk.core.handlers.plans import tracker
from paperdesk.core.research import Backends
from paperdesk.core.research.engine import CHECK_BASE
from settings_for import settings_for

pytestmark = pytest.mark.slow


class FirstAnswerOffTopic(FakeLLM):
    """FakeLLM (a stand-in, not a model) whose first research answer is off topic, so the check re-asks it."""

    def __init__(self) -> None:
        super().__init__()
        self.research = False
        self.off_topic_left = 1

    def stream(self, request, cancel=None):
        if self.research and self.off_topic_left:
            self.off_topic_left -= 1
            self.text = "wheat yields rose in dry plots of the soil study."
        else:
            self.text = "readers keep track of the citations they have already seen across papers."
        return super().stream(request, cancel)


def test_a_plan_mode_cycle_from_a_message_carries_the_dialogue_to_plan_do_and_check_until_save(
        tmp_home, arxiv, embedder, citesee_pdf):
    fake = FirstAnswerOffTopic()  # a stand-in, not a model: the prompts are what is checked
    desk = Desk(settings_for(tmp_home, arxiv.api_url), backend=fake, embedder=embedder)
    planner = FakeLLM('{"steps": []}')  # stand-in planner: an empty plan is rejected, the rules plan runs
    desk.research_backends = Backends(fake, planner, "fake")
    try:
        seen = []
        desk.subscribe(lambda e: seen.append(e) if isinstance(e, Understood) else None)
        assert desk.run("find expository writing").ok
        before = len(fake.requests)
        assert desk.run("summarize the first one").ok and desk.state == "draft-summary"
        # the summary's first section prompt already has the words that asked for it
        assert "User: summarize the first one" in fake.requests[before].prompt
        assert desk.run("save").ok and len(desk.talk.dialogue) == 0
        assert desk.run(f"add {citesee_pdf}").ok and desk.run("save").ok  # the paper the question is about
        assert desk.run("mode plan").ok

        message = "compare how readers keep track of citations across papers"
        outcome = desk.run(message)
        assert seen[-1].decision.command.startswith("research "), seen[-1].line
        assert outcome.ok and desk.state == "draft-plan", outcome.message
        planned = [r.prompt for r in planner.requests]
        assert planned and all("User dialogue" in p and f"User: {message}" in p for p in planned)

        before = len(fake.requests)
        fake.research = True
        built = desk.run("build")
        assert built.ok and desk.state == "draft-research", built.message
        run_id = desk.session.plan_run
        tasks = tracker(desk).tasks(run_id)
        assert any(t.step_id < CHECK_BASE for t in tasks)  # the plan's steps ran (do) ...
        assert any(t.step_id >= CHECK_BASE for t in tasks)  # ... and the check re-asked an answer
        built_prompts = [r.prompt for r in fake.requests[before:]]
        assert len(built_prompts) >= 2
        assert all("User dialogue" in p and f"User: {message}" in p for p in built_prompts)

        assert desk.run("save").ok
        assert len(desk.talk.dialogue) == 0 and desk.session.dialogue == []
        assert desk.run("status").view.lines()[-1] == "dialogue: 0 messages"
    finally:
        desk.close()
