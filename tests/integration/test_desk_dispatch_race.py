"""The race between a finishing generation and an arriving message, driven in both orders.

A stand-in generator (FakeLLM, not a model: this is pure orchestration) holds on a threading.Event
either just before its last token (the message arrives first) or after its last token, before it
reports the end (the generation has finished its text when the message arrives). The message is
submitted while it is held, then the generation is released: exactly one command must follow from the
message, and neither the answer's text nor the message may be lost. Real library, SQLite, embeddings.
"""

import threading

import pytest

from desk_helpers import run_in_background, wait_until
from fake_llm import FakeLLM
from paperdesk.core.desk.desk import Desk
from paperdesk.core.dispatch.talk import Understood
from paperdesk.core.commands.views import CommandStarted
from settings_for import settings_for

pytestmark = pytest.mark.slow

WORDS = "readers keep track of the citations they have already seen across papers".split()


class HeldFakeLLM(FakeLLM):
    """FakeLLM that, once armed, stops before its last token ("before") or after it ("after")."""

    def __init__(self) -> None:
        super().__init__(" ".join(WORDS))
        self.hold = None  # None, "before" or "after"
        self.held = threading.Event()  # set when the stream is waiting
        self.release = threading.Event()

    def stream(self, request, cancel=None):
        self.requests.append(request)
        words = self.text.split(" ")
        hold, self.hold = self.hold, None  # only the armed request holds
        for i, word in enumerate(words):
            if hold == "before" and i == len(words) - 1:
                self._wait()
            self.started.set()
            yield (word if i == 0 else " " + word), None
        if hold == "after":
            self._wait()
        yield "", "stop"

    def _wait(self):
        self.held.set()
        assert self.release.wait(60)


@pytest.mark.parametrize("hold", ["before", "after"], ids=["message-first", "generation-first"])
def test_a_message_racing_a_finishing_answer_runs_exactly_once_and_loses_nothing(tmp_home, arxiv, embedder,
                                                                                  citesee_pdf, hold):
    fake = HeldFakeLLM()
    desk = Desk(settings_for(tmp_home, arxiv.api_url), backend=fake, embedder=embedder)
    try:
        assert desk.run(f"add {citesee_pdf}").ok and desk.run("save").ok
        understood, started = [], []
        desk.subscribe(lambda e: understood.append(e) if isinstance(e, Understood) else None)
        desk.subscribe(lambda e: started.append(e.command) if isinstance(e, CommandStarted) else None)
        fake.hold = hold
        worker, box = run_in_background(desk, "sem-search how do readers track citations")
        assert fake.held.wait(60)
        message = []
        sender = threading.Thread(target=lambda: message.append(desk.talk.submit("make it shorter")))
        sender.start()
        # the message is decided (and the running answer told to stop) while the generation is held
        assert wait_until(lambda: bool(understood))
        fake.release.set()
        worker.join(60)
        sender.join(60)
        assert box and message, "a thread did not finish"
        assert understood[0].interrupting
        # exactly one command came of the message, and it ran once
        assert started.count("improve make it shorter") == 1 and started[-1] == "improve make it shorter"
        assert message[0].command == "improve make it shorter" and message[0].ok, message[0].message
        # nothing lost: the answer's text is kept as its own revision, the improve made the next one
        revisions = desk.store.drafts.revisions(desk.session.draft.draft_id)
        kept = " ".join(WORDS[:-1] if hold == "before" else WORDS)
        assert len(revisions) == 2, [(r.revision, r.status, r.text[:80]) for r in revisions]
        assert kept in revisions[0].text and revisions[0].status in ("interrupted", "draft"), revisions[0].text
        assert [t.text for t in desk.talk.dialogue.turns if t.role == "user"] == ["make it shorter"]
        assert "User: make it shorter" in fake.requests[-1].prompt
        assert sum(1 for cmd, *_ in desk.store.history(50) if cmd == "make it shorter") == 1
    finally:
        fake.release.set()
        desk.close()
