"""Independent chat requests written together by the default writer (one llama.cpp sequence each), as a
summary's notes are: each answers as it would alone, keeps its own limits, and a cancel ends the rest."""

from __future__ import annotations

import pytest

from conftest import LLAMA_THREADS
from paperdesk.core.cancel import CancelToken
from paperdesk.core.llm.backend import GenerationRequest, generate, generate_all
from paperdesk.core.llm.local import LocalBackend
from writer_notes import OPENING, writer_path

pytestmark = pytest.mark.slow
NOTES = [("The hive held 40,000 bees in June.", "How many bees did the hive hold?"),
         ("The kite flew at 30 metres.", "How high did the kite fly?"),
         ("The bakery opened at 6 am on weekdays.", "When did the bakery open?")]


@pytest.fixture(scope="module")
def writer(tmp_path_factory) -> LocalBackend:
    return LocalBackend(writer_path(tmp_path_factory.mktemp("home")), n_ctx=1024, n_threads=LLAMA_THREADS, probe=False)


def ask(note: tuple[str, str], **options) -> GenerationRequest:
    options.setdefault("max_tokens", 16)
    options.setdefault("temperature", 0.0)
    return GenerationRequest(messages=OPENING + [{"role": "user", "content": f"[1] {note[0]}\n\nQuestion: {note[1]}"}],
                             **options)


def test_requests_written_together_each_answer_their_own(writer):
    before = generate(writer, ask(NOTES[1]))
    events = []
    together = generate_all(writer, [ask(note) for note in NOTES], on_started=lambda i: events.append(("read", i)),
                            on_finished=lambda i, g: events.append(("done", i)))
    # the prompts are read one after another, then the three are written together
    assert events[:3] == [("read", 0), ("read", 1), ("read", 2)] and sorted(events[3:]) == [("done", i) for i in range(3)]
    # each answers its own note (a batched step rounds differently from a single one, so a near tie between two
    # words may go the other way: the facts are compared, not the wording)
    assert "40,000" in together[0].text and "30" in together[1].text and "6" in together[2].text
    assert all(g.finish_reason == "stop" and 0 < g.tokens <= 16 and not g.cancelled for g in together)
    # written in a context of their own: the model's state, and what it writes next, are as they were
    assert generate(writer, ask(NOTES[1])).text == before.text


def test_token_limits_and_stop_strings_hold_per_request(writer):
    short, stopped, free = generate_all(writer, [ask(NOTES[0], max_tokens=2), ask(NOTES[1], stop=["30"]),
                                                 ask(NOTES[2], temperature=0.7, seed=5)])
    assert short.finish_reason == "length" and short.tokens == 2
    assert stopped.finish_reason == "stop" and stopped.text and "30" not in stopped.text
    assert free.finish_reason == "stop" and free.text


def test_a_cancel_ends_the_requests_still_running(writer):
    token = CancelToken()
    story = {"role": "user", "content": "Write a long story about the hive, the kite and the bakery."}
    quick, slow = generate_all(writer, [ask(NOTES[0], max_tokens=2),
                                        GenerationRequest(messages=[story], max_tokens=300, temperature=0.9, seed=4)],
                               cancel=token, on_finished=lambda i, g: token.cancel() if i == 0 else None)
    assert quick.finish_reason == "length" and not quick.cancelled
    assert slow.cancelled and slow.finish_reason == "cancelled" and slow.tokens < 300


def test_a_set_it_cannot_write_together_is_declined(writer):
    long_note = (" ".join(["word"] * 900), "What is said?")  # with what it may write, over the 1,024-token window
    assert writer.generate_batch([ask(long_note, max_tokens=200), ask(NOTES[0])]) is None
    schema = {"type": "object", "properties": {"a": {"type": "string"}}, "required": ["a"]}
    assert writer.generate_batch([ask(NOTES[0], json_schema=schema), ask(NOTES[1])]) is None


def test_a_batch_that_cannot_start_is_written_one_by_one(writer, monkeypatch):
    import llama_cpp

    alone = [generate(writer, ask(note)) for note in NOTES[:2]]
    monkeypatch.setattr(llama_cpp, "llama_init_from_model", lambda *_args: None)  # as when memory runs out
    events = []
    together = generate_all(writer, [ask(note) for note in NOTES[:2]], on_started=lambda i: events.append(("read", i)),
                            on_finished=lambda i, g: events.append(("done", i)))
    assert [g.text for g in together] == [g.text for g in alone]
    assert events == [("read", 0), ("done", 0), ("read", 1), ("done", 1)]
