"""The remote backend: any OpenAI-compatible server, streamed over SSE.

`/v1/completions` for prompts and `/v1/chat/completions` for messages. The API
key goes in the Authorization header only; it is never logged or shown.

The server is not trusted to behave: the body is read as UTF-8 lines whatever
its Content-Type, every event is checked for the OpenAI shape (a clear
one-line error otherwise), the answer stops after max_tokens pieces of text
even when the server goes on, a line with no end stops at MAX_LINE, and the
whole answer has a deadline (`deadline_for`) that a watchdog enforces even
while a read is blocked.
"""

from __future__ import annotations

import json
import threading
from typing import Any, Iterator, Sequence

import requests
import urllib3
from urllib.parse import unquote, urlsplit, urlunsplit

from paperdesk.core.cancel import CancelToken
from paperdesk.core.errors import ConfigError, NetworkError
from paperdesk.core.llm.backend import Capabilities, GenerationRequest
from paperdesk.core.text.redact import redact_url
from paperdesk.core.text.clean import strip_controls


# The stream is read in pieces of this size; a line longer than MAX_LINE with no end is not an SSE event.
READ_BYTES = 512
MAX_LINE = 1 << 20
# The whole answer must arrive within llm.timeout plus this much per requested token (see `deadline_for`).
SECONDS_PER_TOKEN = 1.0
CANCEL_POLL_S = 0.05  # how often a stream still waiting on the server looks at its cancel token


def _timed_out(exc: BaseException) -> bool:
    """A read that waited llm.timeout for a byte, however requests or urllib3 wrap it."""
    seen: set[int] = set()
    while exc is not None and id(exc) not in seen:
        seen.add(id(exc))
        if isinstance(exc, (requests.Timeout, urllib3.exceptions.TimeoutError, TimeoutError)):
            return True
        inner = exc.args[0] if exc.args and isinstance(exc.args[0], BaseException) else None
        exc = inner or exc.__context__ or exc.__cause__
    return False


class _Stream:
    """One answer's SSE events, checked: (text, finish reason) per event, or a clear one-line error."""

    def __init__(self, shown_url: str) -> None:
        self.shown_url = shown_url

    def fail(self, what: str) -> NetworkError:
        return NetworkError(f"the model server at {self.shown_url} {what}; check llm.remote_url points at an "
                            f"OpenAI-compatible server")

    def lines(self, chunks: Iterator[bytes]) -> Iterator[str]:
        """The body's lines, decoded as UTF-8 (SSE is UTF-8 whatever the Content-Type says)."""
        parts: list[bytes] = []  # the line so far, in pieces (joined once it ends: no quadratic copying)
        size = 0
        for chunk in chunks:
            if b"\n" not in chunk:
                parts.append(chunk)
                size += len(chunk)
                if size > MAX_LINE:
                    raise self.fail(f"sent a line of over {MAX_LINE >> 20} MiB with no end (not an SSE stream)")
                continue
            first, *whole, rest = chunk.split(b"\n")
            for line in (b"".join([*parts, first]), *whole):
                yield line.rstrip(b"\r").decode("utf-8", errors="replace")
            parts, size = [rest], len(rest)
        if size:
            yield b"".join(parts).rstrip(b"\r").decode("utf-8", errors="replace")

    def piece(self, data: str) -> tuple[str, str | None]:
        """(text, finish reason) of one `data:` event; a stream event of any other shape is an error."""
        try:
            event = json.loads(data, strict=False)  # raw control characters in a string: stripped later
        except ValueError:
            event = None
        if isinstance(event, dict) and "error" in event and "choices" not in event:
            error = event["error"]
            message = error.get("message") if isinstance(error, dict) else error
            raise NetworkError(f"the model server at {self.shown_url} reported an error: "
                               f"{strip_controls(str(message))[:200]!r}")
        choices = event.get("choices") if isinstance(event, dict) else None
        choice = choices[0] if isinstance(choices, list) and choices else None
        if not isinstance(choice, dict):
            raise self.fail(f"sent a stream event that is not an OpenAI completion ({data[:60]!r})")
        if "text" in choice:
            text = choice["text"]
        else:
            delta = choice.get("delta")
            if not isinstance(delta, (dict, type(None))):
                raise self.fail(f"sent a chat delta that is not an object ({data[:60]!r})")
            text = delta.get("content") if delta else None
        reason = choice.get("finish_reason")
        if not isinstance(text, (str, type(None))) or not isinstance(reason, (str, type(None))):
            raise self.fail(f"sent a completion whose text or finish_reason is not a string ({data[:60]!r})")
        return text or "", reason


class RemoteBackend:
    name = "remote"
    # json_schema is sent as a llama.cpp grammar, which llama.cpp's server honours
    # judges: a server that reports log-probabilities gives yes_margins (remote_yes_no.py); one that does not is
    # asked once, and the answer check then goes without it
    capabilities = Capabilities(streams=True, json_schema=True, judges=True)
    # what the callers read to write chat turns rather than one completion prompt: the server applies its model's
    # own template to /v1/chat/completions, so with `chat` this only says that it has one
    chat_template: str | None = None

    def warm_up(self) -> None:
        """Nothing to load here: the server holds the model."""

    def __init__(self, base_url: str, api_key: str = "", timeout: float = 120.0, model: str = "",
                 deadline: float | None = None, chat: bool = False) -> None:
        # The endpoint's path goes before any query string (a gateway's ?token=...), and credentials in the
        # URL (http://user:key@host) are taken out of it: sent as Basic auth unless llm.api_key is set.
        parts = urlsplit(base_url.strip())
        path = parts.path.rstrip("/")
        path = path[:-3] if path.endswith("/v1") else path
        netloc = parts.netloc.rsplit("@", 1)[-1]
        self._url_auth = (unquote(parts.username or ""), unquote(parts.password or "")) if parts.username else None
        self._query = parts.query
        self.base_url = urlunsplit((parts.scheme, netloc, path, "", ""))
        if not (api_key.isascii() and api_key.isprintable()):
            raise ConfigError("llm.api_key holds characters an HTTP header cannot carry; use the key as issued")
        self._api_key = api_key
        self.timeout = timeout  # for the connection and for each read
        self.deadline = deadline  # for the whole answer; None: from the timeout and max_tokens (deadline_for)
        self.model = model
        self.shown_url = redact_url(base_url.strip().rstrip("/"))  # as configured, credentials and secrets masked
        self.chat_template = "the server's own" if chat else None
        self.refused_judging = ""  # why the server gave no log-probabilities for yes_margins ("" until it did not)

    def endpoint(self, path: str) -> str:
        """The full URL of an API path ("/v1/models"), the configured query string kept after it."""
        return self.base_url + path + (f"?{self._query}" if self._query else "")

    def credentials(self) -> dict[str, Any]:
        """requests' keyword arguments that authenticate: llm.api_key as a Bearer token, else the URL's
        user:password as Basic auth."""
        if self._api_key:
            return {"headers": {"Authorization": f"Bearer {self._api_key}"}}
        return {"headers": {}, "auth": self._url_auth}

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
        # The server evaluates the prompt before its first chunk (some before their headers), and
        # `generate` checks `cancel` per chunk: so the request is sent where a cancel can leave it
        # (_post), a watcher shuts the stream as soon as `cancel` is set, which unblocks a read
        # waiting on a server still reading a long prompt, and closing the stream stops the server's
        # generation.
        path, body = self._body(request)
        try:
            response = self._post(path, body, cancel)
        except requests.Timeout:
            raise self._silent() from None
        except requests.RequestException as exc:
            raise NetworkError(
                f"model server unreachable at {self.shown_url} ({type(exc).__name__}); start it or fix llm.remote_url"
            ) from None
        if response is None:
            return  # cancelled before the server answered: generate() marks the result so
        deadline = self.deadline_for(request)
        expired = threading.Event()

        def expire() -> None:  # unblocks a read that waits on a server sending nothing, or one endless line
            expired.set()
            try:
                response.raw.shutdown()
            except Exception:  # noqa: BLE001 - already closed or released: nothing to unblock
                pass

        watchdog = threading.Timer(deadline, expire)
        watchdog.daemon = True
        stopped = threading.Event()  # set by the watcher when `cancel` shut the stream
        finished = threading.Event()

        def watch() -> None:
            while not finished.wait(CANCEL_POLL_S):
                if cancel is not None and cancel.cancelled:
                    stopped.set()
                    try:
                        response.raw.shutdown()
                    except Exception:  # noqa: BLE001 - already closed or released: nothing to unblock
                        pass
                    return

        with response:
            if response.status_code != 200:
                raise NetworkError(f"model server at {self.shown_url} answered HTTP {response.status_code} for {path}")
            watchdog.start()
            if cancel is not None:
                threading.Thread(target=watch, name="remote-cancel", daemon=True).start()
            try:
                yield from self._events(response, max(1, request.max_tokens), expired, stopped)
            except (requests.RequestException, urllib3.exceptions.HTTPError, OSError) as exc:
                if stopped.is_set():
                    return  # cancelled: generate() marks the result so
                if expired.is_set():
                    raise self._too_slow(deadline) from None
                if _timed_out(exc):
                    raise self._silent() from None
                raise NetworkError(f"the model server dropped the stream ({type(exc).__name__}); try again") from None
            finally:
                watchdog.cancel()
                finished.set()
            if stopped.is_set():
                return
            if expired.is_set():
                raise self._too_slow(deadline)

    def yes_margins(self, system: str, opening: str, items: Sequence[str], cancel: CancelToken | None = None,
                    seconds: float | None = None) -> list[float]:
        """The served model's log-odds of replying "yes" over "no" to `opening` followed by each item, in order
        (remote_yes_no.py); fewer come back when cancelled, out of `seconds`, or the server reports no
        log-probabilities."""
        from paperdesk.core.llm import remote_yes_no

        return remote_yes_no.margins(self, system, opening, items, cancel, seconds)

    def post_json(self, path: str, body: dict[str, Any], cancel: CancelToken | None,
                  timeout: float) -> requests.Response | None:
        """The response to a request whose reply is read whole (not streamed), `timeout` for the connection
        and the reply's reads; None when `cancel` was set first."""
        return self._post(path, body, cancel, timeout)

    def _post(self, path: str, body: dict[str, Any], cancel: CancelToken | None,
              timeout: float | None = None) -> requests.Response | None:
        """The streamed response once its headers are in; None when `cancel` was set first. The request is
        sent from a helper thread, which closes a response that arrives after the cancel."""
        def send() -> requests.Response:
            return requests.post(self.endpoint(path), json=body, stream=True,
                                 timeout=self.timeout if timeout is None else timeout, **self.credentials())

        if cancel is None:
            return send()
        box: dict[str, Any] = {}
        done, abandoned = threading.Event(), threading.Event()

        def run() -> None:
            try:
                box["response"] = send()
            except BaseException as exc:  # noqa: BLE001 - raised again in the asking thread
                box["error"] = exc
            finally:
                done.set()
                if abandoned.is_set() and "response" in box:
                    box["response"].close()

        threading.Thread(target=run, name="remote-request", daemon=True).start()
        while not done.wait(CANCEL_POLL_S):
            if cancel.cancelled:
                abandoned.set()
                if done.is_set() and "response" in box:  # it arrived just now: run() may have missed the flag
                    box["response"].close()
                return None
        if "error" in box:
            raise box["error"]
        return box["response"]

    def deadline_for(self, request: GenerationRequest) -> float:
        """Seconds the whole answer may take: llm.timeout for the prompt, then SECONDS_PER_TOKEN per token."""
        return self.deadline if self.deadline is not None else self.timeout + SECONDS_PER_TOKEN * request.max_tokens

    def _silent(self) -> NetworkError:
        return NetworkError(f"the model server at {self.shown_url} sent nothing for {self.timeout:g} s "
                            "(llm.timeout); check the server, or raise llm.timeout for a slow one")

    def _too_slow(self, deadline: float) -> NetworkError:
        return NetworkError(f"the model server at {self.shown_url} did not finish the answer within {deadline:g} s; "
                            f"check the server, or raise llm.timeout for a slow one")

    def _events(self, response: requests.Response, cap: int, expired: threading.Event,
                stopped: threading.Event) -> Iterator[tuple[str, str | None]]:
        """The stream's pieces; stops after `cap` pieces of text as a server that honours max_tokens would."""
        stream = _Stream(self.shown_url)
        pieces, seen = 0, False
        for line in stream.lines(response.iter_content(READ_BYTES)):
            if expired.is_set() or stopped.is_set():
                return
            if not line.startswith("data:"):
                continue
            data = line[5:].strip()
            if data == "[DONE]":
                return
            seen = True
            text, reason = stream.piece(data)
            if text:
                if pieces >= cap:  # the server ignores max_tokens: end it here, as the length limit
                    yield "", "length"
                    return
                pieces += 1
            yield text, reason
        if not seen and not expired.is_set() and not stopped.is_set():
            raise stream.fail(f"sent no completion events (Content-Type {response.headers.get('Content-Type')!r})")
