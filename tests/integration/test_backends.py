"""Both backends (local llama.cpp, remote llama_cpp.server) pass the same tests on the real default model."""

import json

import pytest

from paperdesk.core.cancel import CancelToken
from paperdesk.core.errors import ConfigError, ModelOutputError, NetworkError
from paperdesk.core.llm.backend import GenerationRequest, generate, generate_json
from paperdesk.core.llm.local import LocalBackend
from paperdesk.core.llm.remote import RemoteBackend

pytestmark = pytest.mark.slow
SCHEMA = {"type": "object", "properties": {"answer": {"type": "string", "maxLength": 20}}, "required": ["answer"]}


def test_streams_a_completion(backend):
    tokens = []
    result = generate(backend, GenerationRequest(prompt="The capital of France is", max_tokens=8, seed=1),
                      on_token=tokens.append)
    assert tokens and result.text == "".join(tokens) and result.tokens == len(tokens)
    assert result.finish_reason in ("stop", "length") and not result.cancelled
    assert result.first_token_s is not None and result.first_token_s <= result.total_s


def test_stop_strings_end_the_text(backend):
    result = generate(backend, GenerationRequest(prompt="1, 2, 3, 4,", max_tokens=30, stop=[","], temperature=0.0))
    assert "," not in result.text and result.finish_reason == "stop"


def test_cancel_stops_within_a_token(backend):
    token = CancelToken()
    seen = []

    def on_token(text):
        seen.append(text)
        if len(seen) == 3:
            token.cancel()

    result = generate(backend, GenerationRequest(prompt="Once upon a time", max_tokens=200, temperature=0.8),
                      on_token=on_token, cancel=token)
    assert result.cancelled and result.finish_reason == "cancelled"
    assert len(seen) == 3 and result.text == "".join(seen)


def test_json_schema_constrains_output(backend):
    value, result = generate_json(backend, GenerationRequest(prompt="Question: what is 2+2?\nJSON:", max_tokens=40,
                                                             json_schema=SCHEMA, seed=3))
    assert isinstance(value["answer"], str) and json.loads(result.text) == value


def test_invalid_json_is_retried_once_then_a_clear_error(backend):
    with pytest.raises(ModelOutputError, match="invalid JSON twice"):  # 2 tokens cannot close the object
        generate_json(backend, GenerationRequest(prompt="JSON:", max_tokens=2, json_schema=SCHEMA, seed=2))


def test_chat_messages(backend):
    result = generate(backend, GenerationRequest(messages=[{"role": "user", "content": "Say hello."}], max_tokens=8))
    assert result.finish_reason in ("stop", "length")


def test_missing_and_garbage_model_files_are_clear(tmp_path):
    with pytest.raises(ConfigError, match="no model file"):
        LocalBackend(tmp_path / "none.gguf").llama()
    bad = tmp_path / "bad.gguf"
    bad.write_bytes(b"not a gguf at all")
    with pytest.raises(ConfigError, match="cannot load bad.gguf"):
        LocalBackend(bad).llama()


def test_unreachable_server_is_clear_and_key_is_hidden():
    from conftest import _free_port

    backend = RemoteBackend(f"http://127.0.0.1:{_free_port()}", api_key="secret-key")
    with pytest.raises(NetworkError, match="unreachable") as err:
        generate(backend, GenerationRequest(prompt="x", max_tokens=2))
    assert "secret-key" not in str(err.value) and "secret-key" not in repr(backend)


def test_cancel_during_a_long_prompt_stops_before_any_token_and_leaves_the_model_usable(local_backend):
    import threading
    import time

    prompt = "Readers of scientific papers lose track of the citations they have seen. " * 60 + "\nIn short,"
    request = GenerationRequest(prompt=prompt, max_tokens=12, temperature=0.0)
    local_backend.llama().reset()
    fresh = generate(local_backend, request).text
    token = CancelToken()
    local_backend.llama().reset()
    llama = local_backend.llama()

    def cancel_after_the_first_batch():  # not after a fixed time: on a loaded machine that can be before it
        deadline = time.monotonic() + 60
        while llama.n_tokens == 0 and time.monotonic() < deadline:
            time.sleep(0.001)
        token.cancel()

    threading.Thread(target=cancel_after_the_first_batch, daemon=True).start()
    tokens = []
    cancelled = generate(local_backend, request, on_token=tokens.append, cancel=token)
    assert cancelled.cancelled and cancelled.finish_reason == "cancelled" and tokens == []
    assert 0 < local_backend.llama().n_tokens < len(local_backend.llama().tokenize(prompt.encode()))  # stopped mid-prompt
    # Reuses the evaluated prefix. Not bit-identical to a fresh run: the rest of the prompt is evaluated in other
    # batch splits, and greedy decoding of a 270M model may take another word after a few (seen under load).
    again = generate(local_backend, request)
    assert not again.cancelled and again.text.split()[:1] == fresh.split()[:1]


def test_a_cancel_inside_a_prompt_batch_stops_that_batch_not_after_it(local_backend, monkeypatch):
    """The cancel arrives while llama.cpp evaluates the prompt's first batch (set from inside its decode call):
    that batch is abandoned, so no prompt token counts as evaluated, and the model answers as before after it.
    Checked between batches only, the batch would run to its end (128 tokens: 6 s on a slow 2-core CPU)."""
    import threading

    import llama_cpp._internals as internals

    prompt = "Readers of scientific papers lose track of the citations they have seen. " * 30 + "\nIn short,"
    request = GenerationRequest(prompt=prompt, max_tokens=6, temperature=0.0)
    llama = local_backend.llama()
    monkeypatch.setattr(llama, "cache", None)  # another test's prompt cache would skip the prompt's batches
    assert len(llama.tokenize(prompt.encode())) > 2 * local_backend.n_batch  # several prompt batches
    llama.reset()
    fresh = generate(local_backend, request).text
    token = CancelToken()
    real_decode = internals.llama_cpp.llama_decode
    calls = []

    me = threading.current_thread()

    def decode_then_cancel(ctx, batch):
        # this test's prompt batches only (not a generation another test left running on the shared model)
        if threading.current_thread() is me and batch.n_tokens > 1 and not calls:
            calls.append(llama.n_tokens)  # what the model held before this batch
            token.cancel()  # the user presses Esc while this batch is being evaluated
        return real_decode(ctx, batch)

    monkeypatch.setattr(internals.llama_cpp, "llama_decode", decode_then_cancel)
    llama.reset()
    cancelled = generate(local_backend, request, cancel=token)
    monkeypatch.setattr(internals.llama_cpp, "llama_decode", real_decode)
    assert cancelled.cancelled and cancelled.finish_reason == "cancelled"
    import llama_cpp

    assert len(calls) == 1
    held = llama_cpp.llama_memory_seq_pos_max(llama_cpp.llama_get_memory(llama._ctx.ctx), 0) + 1
    assert llama.n_tokens == held == calls[0]  # the batch under way was abandoned: none of its tokens kept
    llama.reset()
    again = generate(local_backend, request)
    assert not again.cancelled and again.text == fresh


def test_a_cancel_inside_a_prompt_batch_on_a_worker_thread_stops_that_batch(local_backend, monkeypatch):
    """The TUI and the shell generate on a worker thread: there llama.cpp reads a flag in C, raised by a watcher
    when the token is cancelled. The cancel arrives inside the prompt's first batch, and the batch is abandoned
    (none of its tokens kept); the model answers as before afterwards."""
    import threading
    import time

    import llama_cpp
    import llama_cpp._internals as internals

    prompt = "Readers of scientific papers lose track of the citations they have seen. " * 30 + "\nIn short,"
    request = GenerationRequest(prompt=prompt, max_tokens=6, temperature=0.0)
    llama = local_backend.llama()
    monkeypatch.setattr(llama, "cache", None)  # another test's prompt cache would skip the prompt's batches
    llama.reset()
    fresh = generate(local_backend, request).text
    token = CancelToken()
    real_decode = internals.llama_cpp.llama_decode
    calls, results = [], {}

    def decode_then_cancel(ctx, batch):
        if threading.current_thread().name == "asker" and batch.n_tokens > 1 and not calls:
            calls.append(llama.n_tokens)  # what the model held before this batch
            token.cancel()  # the user presses Esc while this batch is being evaluated
            end = time.monotonic() + 30
            while not local_backend._abort_flag.raised and time.monotonic() < end:
                time.sleep(0.005)  # the watcher has seen it before llama.cpp's first graph step
        return real_decode(ctx, batch)

    def ask():
        results["cancelled"] = generate(local_backend, request, cancel=token)

    monkeypatch.setattr(internals.llama_cpp, "llama_decode", decode_then_cancel)
    llama.reset()
    asker = threading.Thread(target=ask, name="asker")
    asker.start()
    asker.join(120)
    monkeypatch.setattr(internals.llama_cpp, "llama_decode", real_decode)
    assert results["cancelled"].cancelled and results["cancelled"].finish_reason == "cancelled"
    assert len(calls) == 1
    held = llama_cpp.llama_memory_seq_pos_max(llama_cpp.llama_get_memory(llama._ctx.ctx), 0) + 1
    assert llama.n_tokens == held == calls[0]  # the batch under way was abandoned inside llama.cpp
    llama.reset()
    again = generate(local_backend, request)
    assert not again.cancelled and again.text == fresh


def test_ctrl_c_inside_a_prompt_batch_on_the_main_thread_stops_that_batch_and_is_not_lost(monkeypatch, request):
    """`paperdesk ask` generates on the main thread with no cancel token: a Ctrl-C that arrives while
    llama.cpp evaluates a prompt batch aborts that batch (its cache entries are gone, not kept as a finished
    batch's would be) and reaches the caller as KeyboardInterrupt, not swallowed by llama.cpp's callback."""
    import os
    import signal
    import threading

    import llama_cpp
    import llama_cpp._internals as internals

    from conftest import LLAMA_THREADS
    from paperdesk.core.llm.models import default_model

    assert threading.current_thread() is threading.main_thread()
    before = signal.getsignal(signal.SIGINT)
    request.addfinalizer(lambda: signal.signal(signal.SIGINT, before))
    signal.signal(signal.SIGINT, signal.default_int_handler)  # as in a terminal: a suite started in the background ignores it
    # the whole prompt in one batch, so the Ctrl-C surely lands inside it
    local_backend = LocalBackend(default_model(), n_ctx=2048, n_threads=LLAMA_THREADS, n_batch=1024)
    prompt = "Readers of scientific papers lose track of the citations they have seen. " * 30 + "\nIn short,"
    request = GenerationRequest(prompt=prompt, max_tokens=6, temperature=0.0)
    llama = local_backend.llama()
    assert len(llama.tokenize(prompt.encode())) < local_backend.n_batch
    llama.reset()
    fresh = generate(local_backend, request).text
    real_decode = internals.llama_cpp.llama_decode
    started = threading.Event()

    def decode_while_ctrl_c(ctx, batch):
        if ctx == llama._ctx.ctx:  # this test's model, not one another test left generating
            started.set()  # a thread presses Ctrl-C while this batch is being evaluated
        return real_decode(ctx, batch)

    def press_ctrl_c():
        started.wait(60)
        os.kill(os.getpid(), signal.SIGINT)

    monkeypatch.setattr(internals.llama_cpp, "llama_decode", decode_while_ctrl_c)
    threading.Thread(target=press_ctrl_c, daemon=True).start()
    llama.reset()
    with pytest.raises(KeyboardInterrupt):
        generate(local_backend, request)
    monkeypatch.undo()
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler  # Python's own handler is back
    memory = llama_cpp.llama_get_memory(llama._ctx.ctx)
    assert llama.n_tokens == 0 and llama_cpp.llama_memory_seq_pos_max(memory, 0) == -1  # the batch was abandoned
    llama.reset()
    again = generate(local_backend, request)
    assert not again.cancelled and again.text == fresh


def test_two_generations_on_one_model_cancel_only_themselves(local_backend):
    import threading

    results = {}
    first_token = threading.Event()
    tokens = {"a": CancelToken(), "b": CancelToken()}

    def run(name, on_token=None):
        request = GenerationRequest(prompt="Once upon a time", max_tokens=40, seed=3, temperature=0.0)
        results[name] = generate(local_backend, request, on_token=on_token, cancel=tokens[name])

    a = threading.Thread(target=run, args=("a", lambda t: first_token.set()))
    a.start()
    assert first_token.wait(120)
    b = threading.Thread(target=run, args=("b",))
    b.start()
    tokens["b"].cancel()  # b waits for the model (or has just got it): only b stops
    b.join(120)
    a.join(120)
    assert results["b"].cancelled and not results["a"].cancelled
    assert results["a"].finish_reason in ("stop", "length")
    again = generate(local_backend, GenerationRequest(prompt="Once upon a time", max_tokens=4, seed=3))
    assert not again.cancelled and again.tokens > 0  # the model is free again


def test_the_model_runs_below_the_ui_thread(local_backend):
    """A generation's thread (and the threads llama.cpp starts from it) run at a lower priority, so the UI
    thread handles a typed key at once; the thread that asked is the only one lowered."""
    import os
    import threading

    from paperdesk.core.cores import MODEL_NICE

    main_nice = os.getpriority(os.PRIO_PROCESS, threading.get_native_id())
    seen = {}

    def ask() -> None:
        generate(local_backend, GenerationRequest(prompt="One, two,", max_tokens=2))
        seen["nice"] = os.getpriority(os.PRIO_PROCESS, threading.get_native_id())

    worker = threading.Thread(target=ask)
    worker.start()
    worker.join(120)
    assert seen["nice"] >= MODEL_NICE
    assert os.getpriority(os.PRIO_PROCESS, threading.get_native_id()) == main_nice
