"""The state after a chat prompt's fixed opening, saved by one model instance and loaded by the next (a new
`paperdesk ask` process), with the default writer, whose own chat template drives the prompt: the answer is
the same whether the opening was evaluated, loaded, or not kept at all, and a damaged state file is
evaluated again. Small prompt batches, so that this short opening spans two of them."""

from __future__ import annotations

import pytest

from conftest import LLAMA_THREADS
from paperdesk.core.llm.backend import GenerationRequest, generate
from paperdesk.core.llm.local import LocalBackend
from writer_notes import OPENING, writer_path

pytestmark = pytest.mark.slow


def ask(backend: LocalBackend, question: str) -> str:
    messages = OPENING + [{"role": "user", "content": f"[1] {question[0]}\n\nQuestion: {question[1]}"}]
    request = GenerationRequest(messages=messages, max_tokens=12, temperature=0.0, seed=1,
                                fixed_messages=len(OPENING))
    return generate(backend, request).text


def writer(tmp_home, folder) -> LocalBackend:
    return LocalBackend(writer_path(tmp_home), n_ctx=1024, n_threads=LLAMA_THREADS, n_batch=32, prefix_folder=folder)


NOTE = ("The hive held 40,000 bees in June.", "How many bees did the hive hold?")
KITE = ("The kite flew at 30 metres.", "How high did the kite fly?")


def test_an_answer_is_the_same_whether_its_opening_was_evaluated_loaded_or_read_before(tmp_home, tmp_path):
    folder = tmp_path / "states"
    first = writer(tmp_home, folder)
    said = ask(first, NOTE)
    assert first.last_opening == "evaluated" and len(list(folder.glob("*.state"))) == 1
    assert "40,000" in said
    kite = ask(first, KITE)  # after another prompt of the same opening
    assert first.last_opening == "held"
    del first

    second = writer(tmp_home, folder)
    assert ask(second, KITE) == kite and second.last_opening == "loaded"  # as if asked first
    del second
    plain = writer(tmp_home, None)  # the whole prompt at once, as without a state folder
    assert ask(plain, NOTE) == said and plain.last_opening == ""


def test_a_damaged_state_file_is_evaluated_again(tmp_home, tmp_path):
    folder = tmp_path / "states"
    said = ask(writer(tmp_home, folder), NOTE)
    (state,) = folder.glob("*.state")
    data = bytearray(state.read_bytes())
    data[-100] ^= 0xFF
    state.write_bytes(bytes(data))

    again = writer(tmp_home, folder)
    assert ask(again, NOTE) == said and again.last_opening == "evaluated"  # and saved whole again
    del again
    third = writer(tmp_home, folder)
    assert ask(third, NOTE) == said and third.last_opening == "loaded"
