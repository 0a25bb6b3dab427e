"""The remote backend: any OpenAI-compatible server, streamed over SSE.

`/v1/completions` for prompts and `/v1/chat/completions` for messages. The API
key goes in the Authorization header only; it is never logged or shown.
"""

from __future__ import annotations

import json
from typing import Any, Iterator

import requests

from paperdesk.core.cancel import CancelToken
from paperdesk.core.errors import ConfigError, NetworkError
from paperdesk.core.llm.backend import Capabilities, GenerationRequest
from paperdesk.core.redact import redact_url


def _choice(data: str, shown_url: str) -> dict[str, Any]:
    """The first choice of one SSE event; a clear error when the server speaks something else."""
    try:
        event = json.loads(data)
        choice = event["choices"][0]
        if not isinstance(choice, dict):
            raise TypeError
        return choice
    except (ValueError, KeyError, IndexError, TypeError):
        raise NetworkError(
            f"the model server at {shown_url} sent a stream event that is not an OpenAI completion "
            f"({data[:60]!r}); check llm.remote_url points at an OpenAI-compatible server"
        ) from None


class RemoteBackend:
    name = "remote"
    # json_schema is sent as a llama.cpp grammar, which llama.cpp's server honours
    capabilities = Capabilities(streams=True, json_schema=True)
    chat_template = None  # the server applies its own template to /v1/chat/completions; prompts are completions

    def warm_up(self) -> None:
        """Nothing to load here: the server holds the model."""

    def __init__(self, base_url: str, api_key: str = "", timeout: float = 120.0, model: str = "") -> None:
        self.base_url = base_url.rstrip("/")
        if self.base_url.endswith("/v1"):
            self.base_url = self.base_url[:-3]
        if not (api_key.isascii() and api_key.isprintable()):
            raise ConfigError("llm.api_key holds characters an HTTP header cannot carry; use the key as issued")
        self._api_key = api_key
        self.timeout = timeout
        self.model = model
        # Credentials in the URL (http://user:key@host) are sent, never shown.
        self.shown_url = redact_url(self.base_url)

    def __repr__(self) -> str:  # no key in reprs, logs or tracebacks
        return f"RemoteBackend({self.shown_url!r})"

    def _body(self, request: GenerationRequest) -> tuple[str, dict[str, Any]]:
        body: dict[str, Any] = {"max_tokens": request.max_tokens, "temperature": request.temperature, "stream": True}
        if self.model:
            body["model"] = self.model
        if request.stop:
            body["stop"] = request.stop
        if request.seed is not None:
            body["seed"] = request.seed
        if request.repeat_penalty is not None:  # llama.cpp's server reads it; other servers ignore it
            body["repeat_penalty"] = request.repeat_penalty
        if request.json_schema is not None:
            from llama_cpp.llama_grammar import json_schema_to_gbnf

            body["grammar"] = json_schema_to_gbnf(json.dumps(request.json_schema))
        if request.messages is not None:
            body["messages"] = request.messages
            return "/v1/chat/completions", body
        body["prompt"] = request.prompt
        return "/v1/completions", body

    def stream(self, request: GenerationRequest, cancel: CancelToken | None = None
               ) -> Iterator[tuple[str, str | None]]:
        # The server evaluates the prompt before its first chunk; `generate` checks `cancel`
        # per chunk and closing the stream stops the server's generation.
        path, body = self._body(request)
        headers = {"Authorization": f"Bearer {self._api_key}"} if self._api_key else {}
        url = self.base_url + path
        try:
            response = requests.post(url, json=body, headers=headers, stream=True, timeout=self.timeout)
        except requests.RequestException as exc:
            raise NetworkError(
                f"model server unreachable at {self.shown_url} ({type(exc).__name__}); start it or fix llm.remote_url"
            ) from None
        with response:
            if response.status_code != 200:
                raise NetworkError(f"model server at {self.shown_url} answered HTTP {response.status_code} for {path}")
            try:
                for line in response.iter_lines(decode_unicode=True):
                    if not line or not line.startswith("data:"):
                        continue
                    data = line[5:].strip()
                    if data == "[DONE]":
                        return
                    choice = _choice(data, self.shown_url)
                    text = choice.get("text") if "text" in choice else (choice.get("delta") or {}).get("content")
                    yield text or "", choice.get("finish_reason")
            except requests.RequestException as exc:
                raise NetworkError(f"the model server dropped the stream ({type(exc).__name__}); try again") from None
