"""The remote backend against a real `python -m llama_cpp.server` on 127.0.0.1 with the default model."""

import json
import socket
import subprocess
import sys
import time

import pytest
import requests

from paperdesk.core.cancel import CancelToken
from paperdesk.core.errors import NetworkError
from paperdesk.core.llm.backend import GenerationRequest, generate
from paperdesk.core.llm.models import default_model
from paperdesk.core.llm.remote import RemoteBackend

pytestmark = pytest.mark.slow


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@pytest.fixture(scope="module")
def server_url():
    port = _free_port()
    proc = subprocess.Popen(
        [sys.executable, "-m", "llama_cpp.server", "--model", str(default_model()), "--host", "127.0.0.1",
         "--port", str(port), "--n_ctx", "1024"],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            try:
                if requests.get(url + "/v1/models", timeout=1).status_code == 200:
                    break
            except requests.RequestException:
                time.sleep(0.3)
        else:
            pytest.fail("llama_cpp.server did not start")
        yield url
    finally:
        proc.terminate()
        proc.wait(timeout=30)


def test_streams_completion(server_url):
    tokens = []
    result = generate(RemoteBackend(server_url, api_key="secret-key"),
                      GenerationRequest(prompt="The capital of France is", max_tokens=8, seed=1), on_token=tokens.append)
    assert tokens and result.text == "".join(tokens) and result.finish_reason in ("stop", "length")


def test_cancel_within_a_token(server_url):
    token = CancelToken()
    seen = []

    def on_token(text):
        seen.append(text)
        if len(seen) == 2:
            token.cancel()

    result = generate(RemoteBackend(server_url), GenerationRequest(prompt="Once upon a time", max_tokens=200,
                                                                   temperature=0.8), on_token=on_token, cancel=token)
    assert result.cancelled and len(seen) == 2


def test_json_schema(server_url):
    schema = {"type": "object", "properties": {"answer": {"type": "string", "maxLength": 20}}, "required": ["answer"]}
    result = generate(RemoteBackend(server_url), GenerationRequest(prompt="Q: 2+2?\nJSON:", max_tokens=40,
                                                                   json_schema=schema, seed=3))
    assert result.text.lstrip().startswith("{")
    if result.finish_reason == "stop":
        assert "answer" in json.loads(result.text)


def test_unreachable_server_is_clear_and_key_is_hidden():
    backend = RemoteBackend(f"http://127.0.0.1:{_free_port()}", api_key="secret-key")
    with pytest.raises(NetworkError, match="unreachable") as err:
        generate(backend, GenerationRequest(prompt="x", max_tokens=2))
    assert "secret-key" not in str(err.value) and "secret-key" not in repr(backend)
