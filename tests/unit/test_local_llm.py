"""The local llama.cpp backend on the real default model (Gemma 3 270M): short outputs only."""

import json
import threading
import time

import pytest

from paperdesk.core.cancel import CancelToken
from paperdesk.core.errors import ConfigError
from paperdesk.core.llm.backend import GenerationRequest, generate
from paperdesk.core.llm.local import LocalBackend
from paperdesk.core.llm.models import default_model

pytestmark = pytest.mark.slow


@pytest.fixture(scope="session")
def local_backend():
    backend = LocalBackend(default_model(), n_ctx=2048)
    backend.llama()
    return backend


def test_streams_a_completion(local_backend):
    tokens = []
    result = generate(local_backend, GenerationRequest(prompt="The capital of France is", max_tokens=8, seed=1),
                      on_token=tokens.append)
    assert result.text == "".join(tokens) and result.tokens == len(tokens) >= 1
    assert result.finish_reason in ("stop", "length") and not result.cancelled
    assert result.first_token_s is not None and result.first_token_s <= result.total_s


def test_cancel_stops_within_a_token(local_backend):
    token = CancelToken()
    seen = []

    def on_token(text):
        seen.append(text)
        if len(seen) == 3:
            token.cancel()

    result = generate(local_backend, GenerationRequest(prompt="Once upon a time", max_tokens=200, temperature=0.8),
                      on_token=on_token, cancel=token)
    assert result.cancelled and result.finish_reason == "cancelled"
    assert len(seen) == 3 and result.text == "".join(seen)


def test_json_schema_constrains_output(local_backend):
    schema = {"type": "object", "properties": {"answer": {"type": "string", "maxLength": 20}}, "required": ["answer"]}
    result = generate(local_backend, GenerationRequest(prompt="Question: what is 2+2?\nJSON:", max_tokens=40,
                                                        json_schema=schema, seed=3))
    if result.finish_reason == "stop":
        assert "answer" in json.loads(result.text)
    else:  # ran out of tokens mid-object: still a prefix the grammar allowed
        assert result.text.lstrip().startswith("{")


def test_missing_and_garbage_model_files_are_clear(tmp_path):
    with pytest.raises(ConfigError, match="no model file"):
        LocalBackend(tmp_path / "none.gguf").llama()
    bad = tmp_path / "bad.gguf"
    bad.write_bytes(b"not a gguf at all")
    with pytest.raises(ConfigError, match="cannot load bad.gguf"):
        LocalBackend(bad).llama()
