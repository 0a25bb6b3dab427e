"""A model server asked for its yes-or-no (llm/remote_yes_no.py) over real HTTP on 127.0.0.1 that answers
badly: no margin comes back, the question is not put again to a server that refused, and a server that never
finishes its reply is left at the caller's deadline."""

from __future__ import annotations

import json
import time

import pytest

from paperdesk.bench.hostile_http import HostileServer
from paperdesk.core.cancel import CancelToken
from paperdesk.core.llm.remote import RemoteBackend

ITEMS = ["Sentence: The sky is blue.\nDoes it state the answer? Reply yes or no."] * 2


@pytest.fixture
def server():
    running = HostileServer().start()
    yield running
    running.stop()


def _asked(server: HostileServer) -> int:
    return sum("/chat/completions" in path for path, _ in server.seen)


def test_log_probabilities_give_a_margin_per_item_and_the_request_asks_for_them(server):
    top = [{"token": "Yes", "logprob": -0.2}, {"token": "No", "logprob": -1.7}]
    server.canned_body = json.dumps({"choices": [{"logprobs": {"content": [
        {"token": "Yes", "logprob": -0.2, "top_logprobs": top}]}}]}).encode()
    server.canned_type = "application/json"
    remote = RemoteBackend(server.url("/canned"), api_key="secret-key", model="served")
    assert remote.yes_margins("System.", "Question: What colour?", ITEMS, seconds=10) == pytest.approx([1.5, 1.5])
    assert _asked(server) == 2 and not remote.refused_judging
    headers = server.seen[-1][1]
    assert headers.get("Authorization") == "Bearer secret-key"


@pytest.mark.parametrize("body, why", [
    (b'{"choices": [{"message": {"content": "Yes"}}]}', "no log-probabilities"),
    (b"<html>gateway error</html>", "not JSON"),
])
def test_a_reply_without_log_probabilities_is_a_refusal_remembered(server, body, why):
    server.canned_body, server.canned_type = body, "application/json"
    remote = RemoteBackend(server.url("/canned"))
    assert remote.yes_margins("System.", "Question?", ITEMS, seconds=10) == []
    assert why in remote.refused_judging and _asked(server) == 1
    assert remote.yes_margins("System.", "Question?", ITEMS, seconds=10) == []
    assert _asked(server) == 1  # not asked again


@pytest.mark.parametrize("status, refused", [(404, True), (500, True), (503, False), (429, False)])
def test_a_busy_server_is_asked_again_and_one_that_cannot_is_not(server, status, refused):
    server.canned_body, server.canned_type, server.canned_status = b'{"error": "no"}', "application/json", status
    remote = RemoteBackend(server.url("/canned"))
    for _ in range(2):
        assert remote.yes_margins("System.", "Question?", ITEMS, seconds=10) == []
    assert (remote.refused_judging == f"HTTP {status}") is refused
    assert _asked(server) == (1 if refused else 2)


@pytest.mark.parametrize("path", ["/sse-silent", "/sse-forever"])
def test_a_server_that_never_finishes_its_reply_is_left_at_the_deadline(server, path):
    remote = RemoteBackend(server.url(path))
    start = time.monotonic()
    assert remote.yes_margins("System.", "Question?", ITEMS, seconds=1.0) == []
    assert time.monotonic() - start < 5
    assert not remote.refused_judging  # slow is not a refusal: the next answer asks again


def test_a_cancel_stops_before_the_next_item(server):
    server.canned_body, server.canned_type = b"{}", "application/json"
    token = CancelToken()
    token.cancel()
    assert RemoteBackend(server.url("/canned")).yes_margins("System.", "Question?", ITEMS, cancel=token) == []
    assert _asked(server) == 0
