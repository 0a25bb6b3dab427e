"""Messages answered beside running work are recorded in history (every decision is recorded).

Real library, SQLite and embeddings; a FakeLLM stand-in (not a model) held after its first token keeps a summary
running while the messages arrive: this is orchestration only.
"""

import threading

import pytest

from fake_llm import FakeLLM
from paperdesk.core.desk.desk import Desk
from settings_for import settings_for

pytestmark = pytest.mark.slow


def test_messages_answered_while_a_summary_runs_get_history_rows_and_the_work_goes_on(tmp_home, arxiv, embedder):
    fake = FakeLLM(" ".join(["word"] * 300))
    fake.held_until = threading.Event()  # the summary's generations wait after a token until the messages are in
    desk = Desk(settings_for(tmp_home, arxiv.api_url), backend=fake, embedder=embedder)
    try:
        assert desk.run("find expository writing").ok
        box = []
        worker = threading.Thread(target=lambda: box.append(desk.run("summarize 1")))
        worker.start()
        assert fake.started.wait(30)
        beside = desk.talk.submit("ask status")  # read-only: answered beside the summary
        asked = desk.talk.submit("that one")  # vague: a question back, nothing stops
        assert desk.busy, "the summary should still be running"
        rows = {cmd: (state, summary) for cmd, state, summary, _ in desk.store.history(50)}
        fake.held_until.set()
        worker.join(60)
        assert box[0].ok and beside.ok and asked.ok
        assert "ask status" in rows and "-> status (delegate" in rows["ask status"][1]
        assert "answered beside the running work: ok" in rows["ask status"][1]
        assert "that one" in rows and rows["that one"][1].startswith("asked: ")
        # still there once the summary has finished and persisted its own session and row
        after = [cmd for cmd, *_ in desk.store.history(50)]
        assert after.count("ask status") == 1 and after.count("that one") == 1 and "summarize 1" in after
        users = [t.text for t in desk.talk.dialogue.turns if t.role == "user"]
        assert users == ["ask status", "that one"]
        assert desk.session.dialogue == desk.talk.dialogue.to_json()
    finally:
        desk.close()
