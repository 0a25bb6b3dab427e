"""A hostile or broken OpenAI-compatible server, over real HTTP on 127.0.0.1: every bad shape is a one-line
error, a server that ignores max_tokens or never ends its line is stopped, SSE is UTF-8 whatever the header
says, and escape sequences in model output never reach the terminal (for every backend, in `generate`).
"""

from __future__ import annotations

import time

import pytest

from paperdesk.bench.hostile_http import HostileServer
from paperdesk.core.errors import NetworkError
from paperdesk.core.llm.backend import Generation, GenerationRequest, generate
from paperdesk.core.llm.remote import RemoteBackend


@pytest.fixture
def server():
    running = HostileServer().start()
    yield running
    running.stop()


def _ask(url: str, max_tokens: int = 8, **kw) -> Generation:
    return generate(RemoteBackend(url, **kw), GenerationRequest(prompt="hi", max_tokens=max_tokens))


def _one_line(exc: BaseException) -> str:
    message = str(exc)
    assert "\n" not in message and "Traceback" not in message and len(message) < 400, message
    return message


@pytest.mark.parametrize("body, content_type, expect", [
    (b'data: {"choices":[{"text":5}]}\n\n', "text/event-stream", "not a string"),
    (b'data: {"choices":[{"delta":"x"}]}\n\n', "text/event-stream", "chat delta that is not an object"),
    (b'data: {"choices":[{"delta":{"content":["x"]}}]}\n\n', "text/event-stream", "not a string"),
    (b'data: {"choices":[{"text":"x","finish_reason":7}]}\n\n', "text/event-stream", "not a string"),
    (b'data: {"choices":"all"}\n\n', "text/event-stream", "not an OpenAI completion"),
    (b'data: [1, 2]\n\n', "application/octet-stream", "not an OpenAI completion"),
    (b'data: {"error":{"message":"model \\u001b[31mnot loaded"}}\n\n', "text/event-stream", "'model not loaded'"),
    (b'{"choices":[{"text":"not streamed"}]}', "application/json", "sent no completion events"),
    (b"\xff\xfe\x00garbage", "application/octet-stream", "sent no completion events"),
])
def test_malformed_streams_are_one_line_errors(server, body, content_type, expect):
    server.canned_body, server.canned_type = body, content_type
    with pytest.raises(NetworkError) as info:
        _ask(server.url("/canned"))
    assert expect in _one_line(info.value)


def test_octet_stream_and_a_wrong_charset_are_read_as_utf8(server):
    body = ('data: {"choices":[{"text":"café"}]}\r\n\r\n'
            'data: {"choices":[{"delta":{"role":"assistant"}}]}\n\n'
            'data: {"choices":[{"text":" — naïve","finish_reason":"stop"}]}\n\ndata: [DONE]\n\n').encode()
    for content_type in ("application/octet-stream", "text/event-stream", "text/event-stream; charset=iso-8859-1"):
        server.canned_body, server.canned_type = body, content_type
        result = _ask(server.url("/canned"))
        assert (result.text, result.finish_reason) == ("café — naïve", "stop"), content_type


def test_a_server_that_ignores_max_tokens_is_cut_at_the_cap(server):
    start = time.monotonic()
    result = _ask(server.url("/sse-forever"), max_tokens=12)
    assert result.tokens == 12 and result.finish_reason == "length" and result.text == "word " * 12
    assert time.monotonic() - start < 10


def test_one_endless_line_stops_with_a_clear_error(server):
    server.sse_every = 0
    with pytest.raises(NetworkError, match="with no end") as info:
        _ask(server.url("/sse-endless"))
    _one_line(info.value)


def test_a_trickling_or_silent_server_meets_the_total_deadline(server):
    server.trickle_bytes, server.sse_every = 1, 0.05  # one byte of an endless line every 50 ms
    for every in (0.05, 30.0):  # trickling, then silent after the first bytes (a blocked read is cut too)
        server.sse_every = every
        start = time.monotonic()
        with pytest.raises(NetworkError, match="did not finish the answer within 1.5 s") as info:
            _ask(server.url("/sse-endless"), deadline=1.5)
        assert time.monotonic() - start < 6, every
        _one_line(info.value)
    assert RemoteBackend("http://127.0.0.1:9", timeout=30).deadline_for(GenerationRequest(prompt="x", max_tokens=100)) \
        == 130


@pytest.mark.parametrize("path", ["/sse-silent", "/no-headers"])
def test_a_cancel_while_the_server_is_still_reading_the_prompt_returns_at_once(server, path):
    """The server is evaluating a long prompt: it has sent its event stream's headers and nothing else, or
    (as some servers do) nothing at all yet. Esc ends the generation as cancelled, without waiting for the
    first token or llm.timeout (120 s)."""
    import threading

    from paperdesk.core.cancel import CancelToken

    token, done = CancelToken(), {}

    def ask() -> None:
        try:
            done["result"] = generate(RemoteBackend(server.url(path), timeout=120),
                                      GenerationRequest(prompt="hi", max_tokens=8), cancel=token)
        except BaseException as exc:  # noqa: BLE001 - shown by the assertion below
            done["error"] = exc

    worker = threading.Thread(target=ask, daemon=True)
    worker.start()
    deadline = time.monotonic() + 30
    while not server.seen and worker.is_alive() and time.monotonic() < deadline:  # the request reached the server
        time.sleep(0.01)
    token.cancel()
    worker.join(30)  # a hang guard: the server never speaks, so only the cancel can end the call
    assert not worker.is_alive(), "the cancel did not end a stream waiting on the server"
    assert "error" not in done, done.get("error")
    result = done["result"]
    assert result.cancelled and result.finish_reason == "cancelled" and result.text == ""


def test_escape_sequences_in_model_output_never_reach_the_terminal(server):
    # raw ESC in the JSON, and JSON-escaped ones (\u001b, \u009b, \u0007); a CSI split across two events
    body = (b'data: {"choices":[{"text":"a\x1b[31mred\x1b[0m "}]}\n\n'
            b'data: {"choices":[{"text":"\\u001b]0;pwned\\u0007title \\r\\nb\\u009b2J\\u001b["}]}\n\n'
            b'data: {"choices":[{"text":"2Jc\\td","finish_reason":"stop"}]}\n\n')
    server.canned_body, server.canned_type = body, "text/event-stream"
    shown: list[str] = []
    result = generate(RemoteBackend(server.url("/canned")), GenerationRequest(prompt="hi", max_tokens=8),
                      on_token=shown.append)
    assert result.text == "ared title \nbc\td" and "".join(shown) == result.text
    assert not any(ch in result.text for ch in "\x1b\x9b\x07\r")


def test_bench_hostile_sse_trials_run_clean():
    from paperdesk.bench.faults_io import hostile_sse_trials
    from paperdesk.bench.faults_kill import Tally

    tally = Tally("sse")
    hostile_sse_trials(tally)
    assert tally.tries == 16 and tally.clean == tally.tries, tally.problems


def test_a_query_string_stays_after_the_endpoint_and_url_credentials_never_hide_the_api_key(server):
    body = b'data: {"choices":[{"text":"ok","finish_reason":"stop"}]}\n\n'
    server.canned_body, server.canned_type = body, "text/event-stream"
    host = server.base_url.removeprefix("http://")
    assert _ask(server.url("/canned?token=abc")).text == "ok"
    assert server.seen[-1][0] == "/canned/v1/completions?token=abc"
    assert _ask(f"http://user:pa%40ss@{host}/canned/v1", api_key="the-key").text == "ok"
    assert server.seen[-1][1]["Authorization"] == "Bearer the-key"  # the configured key wins over the URL's
    assert _ask(f"http://user:pa%40ss@{host}/canned").text == "ok"
    import base64
    assert server.seen[-1][1]["Authorization"] == "Basic " + base64.b64encode(b"user:pa@ss").decode()
    shown = RemoteBackend(f"http://user:secret@{host}/canned?token=abc").shown_url
    assert "secret" not in shown and "abc" not in shown


def test_a_server_that_goes_silent_names_the_timeout_that_stopped_it(server):
    server.trickle_bytes, server.sse_every = 1, 30.0  # the head and one byte, then nothing
    start = time.monotonic()
    with pytest.raises(NetworkError, match=r"sent nothing for 1 s \(llm.timeout\)") as info:
        _ask(server.url("/sse-endless"), timeout=1.0, deadline=60)
    assert time.monotonic() - start < 10
    _one_line(info.value)
