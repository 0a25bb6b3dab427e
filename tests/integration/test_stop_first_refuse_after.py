"""A command typed while work runs is checked against the workflow before anything offers to stop that work:
a refused command never interrupts. At the Desk, which every face asks (TUI, shell, free text).

A summary streams from FakeLLM (tests/fake_llm.py) slowly enough to be running while the test types: these
tests are about the workflow's orchestration, not what a model writes.
"""

import threading

import pytest

from conftest import PAPERS
from fake_llm import FakeLLM
from paperdesk.core.desk.desk import Desk
from paperdesk.core.dispatch.types import Decision
from settings_for import settings_for

pytestmark = pytest.mark.slow


@pytest.fixture
def summarizing(tmp_home, arxiv, embedder):
    """A Desk whose `add` of a local PDF is streaming its summary (state draft-summary), and the finished list."""
    backend = FakeLLM(delay=0.05)
    desk = Desk(settings_for(tmp_home, arxiv.api_url, PAPERDESK_OFFLINE="1"), backend=backend, embedder=embedder)
    finished = []
    worker = threading.Thread(target=lambda: finished.append(desk.run(f"add {PAPERS / '2304.02623v1.pdf'}")))
    worker.start()
    assert backend.started.wait(120) and desk.busy
    yield desk, finished
    desk.cancel()
    worker.join(60)
    desk.close()


def test_a_refused_command_is_refused_before_anything_stops(summarizing):
    desk, finished = summarizing
    assert desk.state == "draft-summary" and desk.running() == "summary"
    assert not desk.interrupts("sem-search how often participants opened papers")  # refused: nothing to stop for
    assert not desk.interrupts("list") and not desk.interrupts("find citations")
    assert desk.interrupts("improve quote the survey numbers")  # allowed in draft-summary: it may stop the summary

    refused = desk.answer_now("sem-search how often participants opened papers")
    assert refused.status == "refused"
    assert refused.message.startswith("sem-search is not available in draft-summary: finish the draft summary first")
    assert desk.busy and not finished  # the summary still runs
    assert ("sem-search how often participants opened papers", "draft-summary") in [
        row[:2] for row in desk.store.history()]


def test_a_message_understood_as_a_refused_command_does_not_interrupt(summarizing):
    desk, finished = summarizing
    search = Decision("delegate", "sem-search how often participants opened papers", None, 0.9, "test")
    improve = Decision("delegate", "improve quote the survey numbers", None, 0.9, "test")
    assert not desk.talk.interrupts(search) and desk.talk.interrupts(improve)
    assert desk.busy and not finished

