"""A new message interrupts a running discussion: the dispatcher gets it, the discussion stays resumable.

Real library, SQLite, tantivy, MiniLM (the dispatcher routes the message by it) and the loopback arXiv;
FakeLLM stands in for the model (NOT a model: slow fixed tokens) because this is about orchestration:
who holds the desk, what is stored, what resumes.
"""

from __future__ import annotations

import threading

import pytest

from conftest import PAPERS
from fake_llm import FakeLLM
from paperdesk.core.desk.desk import Desk
from paperdesk.core.discussion import DiscussionStore
from paperdesk.core.dispatch.talk import Understood
from paperdesk.core.commands.views import DiscussionProgress
from settings_for import settings_for

pytestmark = pytest.mark.slow  # the real embedder


def test_a_free_text_message_interrupts_discuss_and_discuss_resume_finishes_it(tmp_home, arxiv, embedder):
    desk = Desk(settings_for(tmp_home, arxiv.api_url), backend=FakeLLM(delay=0.02), embedder=embedder)
    try:
        desk.library.add_pdf(PAPERS / "2304.02623v1.pdf")
        assert desk.run("list").ok
        stored = threading.Event()
        turns: list[int] = []
        understood: list[Understood] = []
        desk.subscribe(lambda e: understood.append(e) if isinstance(e, Understood) else None)

        def on_turn(event) -> None:
            if isinstance(event, DiscussionProgress) and event.kind == "turn":
                turns.append(event.turn)
                stored.set()

        desk.subscribe(on_turn)
        box = []
        worker = threading.Thread(target=lambda: box.append(desk.run("discuss 1 --turns 4 --every 2")))
        worker.start()
        assert stored.wait(120), "the discussion stored no turn"
        assert desk.busy
        message = desk.talk.submit("find expository writing")  # typed while the discussion runs
        worker.join(60)
        assert not worker.is_alive()

        # the dispatcher understood the message as a find, interrupting the discussion, and ran it
        assert understood and understood[0].decision.command.startswith("find") and understood[0].interrupting
        assert message.command.startswith("find") and message.ok, message.message
        assert arxiv.api_requests  # the find searched arXiv (the loopback server)
        assert desk.session.results and desk.session.results_kind != "discuss"
        # the discussion was interrupted, not lost: stored as such with its finished turns
        (cut,) = box
        assert cut.status == "cancelled" and "discuss --resume" in cut.message
        store = DiscussionStore(desk.store.path)
        did = store.latest_unfinished()
        assert did is not None and store.get(did)["status"] == "interrupted"
        done = len(store.turns(did))
        assert 1 <= done < 4 and done == max(turns)

        # the find left the desk in select-new, where discuss needs a library paper: list, then resume
        assert desk.state == "select-new" and desk.run("discuss --resume").status == "refused"
        assert desk.run("list").ok
        desk.backend.delay = 0.0  # nothing interrupts the resumed run: no need for slow tokens
        resumed = desk.run("discuss --resume")
        assert resumed.ok, resumed.message
        assert store.get(did)["status"] == "finished" and [t.n for t in store.turns(did)] == [1, 2, 3, 4]
        assert turns[-(4 - done):] == list(range(done + 1, 5))  # it went on from the next turn, nothing asked twice
        assert desk.state == "draft-discussion" and "## Turn 4:" in resumed.view.text
        store.close()
    finally:
        desk.close()
