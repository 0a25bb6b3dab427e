"""The local backend: llama-cpp-python with one model kept loaded."""

from __future__ import annotations

import logging
import signal
import threading
import time
from contextlib import contextmanager, nullcontext
from pathlib import Path
from typing import Any, Callable, Iterator, Sequence

from paperdesk.core.cancel import CancelToken
from paperdesk.core.cores import usable_cores, yield_to_ui
from paperdesk.core.errors import ConfigError
from paperdesk.core.llm.abort_flag import AbortFlag
from paperdesk.core.llm.backend import Capabilities, Generation, GenerationRequest, generate
from paperdesk.core.llm.llama_quiet import quiet_llama
from paperdesk.core.llm.meter import METER
from paperdesk.core.llm.prefix_states import PrefixStates, chat_tokens, prime, shared_length
from paperdesk.core.text.clean import strip_controls

CHAT_OVERHEAD = 64  # tokens a chat template may add around one user message
MIN_OPENING = 32  # a shorter fixed opening is not worth a state file

_log = logging.getLogger("paperdesk.llama")


class _Aborted(Exception):
    """Raised between two prompt batches when the generation was cancelled."""


class LocalBackend:
    """Generates with a GGUF model through llama.cpp; loads it on first use.

    The prompt is evaluated `n_batch` tokens per llama.cpp call. The cancel
    token is checked between those calls and, while a batch of the prompt is
    being evaluated, by llama.cpp itself between the steps of its compute
    graph, so a cancel during a long prompt lands within milliseconds, not
    after the batch (128 tokens take 6 s on a slow 2-core CPU).

    The one loaded model generates one request at a time: a second generation
    waits for the first (still honouring its own cancel token while it
    waits), and the token checked between batches is always that of the
    generation holding the model, so two generations never cancel each other.
    """

    name = "local"
    capabilities = Capabilities(streams=True, json_schema=True, judges=True, batches=True)

    def __init__(self, model_path: Path, n_ctx: int = 4096, n_threads: int = 0, n_batch: int = 128,
                 probe: bool = True, prefix_folder: Path | None = None) -> None:
        self.model_path = model_path
        # where the state after a request's fixed opening is kept for later processes (None: not kept)
        self.prefix_folder = prefix_folder
        self._prefixes: PrefixStates | None = None
        self.last_opening = ""  # how the last request's fixed opening was had: "held", "loaded", "evaluated" or ""
        self.opening_tokens = 0  # how many tokens that opening kept (0: none)
        self.probe = probe  # run the crash probe (probe.py) before the first load of a new build
        self.n_ctx = n_ctx
        self.n_threads = n_threads or usable_cores()  # llama.cpp's own default counts every core
        self.n_batch = n_batch
        self._llama: Any = None
        self._lock = threading.Lock()
        self._generating = threading.Lock()  # held by the one generation using the model
        self._cancel: CancelToken | None = None  # the token of the generation holding `_generating`
        self._template: tuple[str | None] | None = None  # the chat template, once read
        self._abort_callback: Any = None  # llama.cpp's abort callback while this model is loaded
        self._abort_flag: AbortFlag | None = None  # what the callback reads for worker-thread generations

    def llama(self) -> Any:
        with self._lock:
            if self._llama is None:
                from llama_cpp import Llama

                quiet_llama()
                if not self.model_path.is_file():
                    raise ConfigError(f"no model file at {self.model_path}; set llm.model_path or put a GGUF in models/")
                if self.probe:
                    # A llama.cpp build that dies on a signal would take the app with it: try it
                    # in a child first (cached per build), and raise its one-line fix instead.
                    from paperdesk.core.llm.probe import ensure_model_runs

                    ensure_model_runs(self.model_path)
                try:
                    llama = Llama(model_path=str(self.model_path), n_ctx=self.n_ctx, n_batch=self.n_batch,
                                  n_threads=self.n_threads, n_threads_batch=self.n_threads, verbose=False)
                except (ValueError, RuntimeError) as exc:
                    raise ConfigError(
                        f"cannot load {self.model_path.name} as a GGUF model ({exc}); pick another file"
                    ) from None
                self._stop_on_cancel(llama)
                self._llama = llama
            return self._llama

    def _stop_on_cancel(self, llama: Any) -> None:
        # Llama.eval calls ctx.decode once per n_batch tokens and counts a batch as done only
        # after it returns, so stopping before a call leaves the KV cache consistent.  Inside a
        # prompt batch, llama.cpp's abort callback asks the token between graph steps; an aborted
        # decode drops that batch's cache entries and returns 2, so the model's state is that of
        # the batches before it.  The callback is set for prompt batches only: a one-token decode
        # is short, and a cancel then lands at the next token anyway.
        #
        # In a worker thread (the TUI, the shell) the callback is a C function reading a flag that a
        # watcher thread raises on cancel (abort_flag), so no Python runs inside the batch.  On the
        # main thread (the CLI, which has no token) it is Python, because a Ctrl-C must reach it:
        # Python's own handler would raise KeyboardInterrupt inside the callback, where ctypes drops
        # it, so for the batch a handler that only notes the Ctrl-C stands in, the callback aborts on
        # it, and KeyboardInterrupt is raised once decode has returned.
        import llama_cpp

        decode = llama._ctx.decode
        ctx = llama._ctx.ctx
        no_callback = llama_cpp.ggml_abort_callback()  # a NULL pointer: llama.cpp asks nobody
        interrupted = threading.Event()

        @llama_cpp.ggml_abort_callback
        def stop_now(_data: Any) -> bool:
            token = self._cancel
            return interrupted.is_set() or (token is not None and token.cancelled)

        self._abort_callback = stop_now  # kept referenced: llama.cpp holds a raw pointer to it

        def note_ctrl_c(_signum: int, _frame: Any) -> None:
            interrupted.set()

        flag = AbortFlag()
        self._abort_flag = flag  # kept referenced: llama.cpp reads its buffer

        def decode_watched(batch: Any, token: CancelToken) -> Any:
            # a worker thread (the TUI's, the shell's): a Python callback would wait at each graph step
            # on the interpreter lock a busy UI thread holds, so llama.cpp reads a flag in C instead
            with flag.watching(token):
                llama_cpp.llama_set_abort_callback(ctx, flag.callback, flag.data)
                try:
                    return decode(batch)
                except RuntimeError as exc:
                    if "returned 2" not in str(exc):  # not an abort: a real failure
                        raise
                    llama._requires_eval = True  # the aborted batch left no logits to sample from
                    raise _Aborted() from None
                finally:
                    llama_cpp.llama_set_abort_callback(ctx, no_callback, None)

        def decode_unless_cancelled(batch: Any) -> Any:
            token = self._cancel
            if token is not None and token.cancelled:
                raise _Aborted()
            if batch.batch.n_tokens <= 1:
                return decode(batch)
            if threading.current_thread() is not threading.main_thread():
                if token is None or flag.callback is None:  # nothing to stop it, or no C flag reader
                    return decode(batch)
                return decode_watched(batch, token)
            interrupted.clear()
            swap = (threading.current_thread() is threading.main_thread()
                    and signal.getsignal(signal.SIGINT) is signal.default_int_handler)
            if swap:
                signal.signal(signal.SIGINT, note_ctrl_c)
            llama_cpp.llama_set_abort_callback(ctx, stop_now, None)
            try:
                result = decode(batch)
            except RuntimeError as exc:
                if "returned 2" not in str(exc):  # not an abort: a real failure
                    raise
                llama._requires_eval = True  # the aborted batch left no logits to sample from
                if not interrupted.is_set():
                    if token is not None and token.cancelled:
                        raise _Aborted() from None
                    raise
            finally:
                llama_cpp.llama_set_abort_callback(ctx, no_callback, None)
                if swap:
                    signal.signal(signal.SIGINT, signal.default_int_handler)
            if interrupted.is_set():
                raise KeyboardInterrupt
            return result

        llama._ctx.decode = decode_unless_cancelled

    def warm_up(self) -> None:
        self.llama()

    @property
    def chat_template(self) -> str | None:
        """The GGUF's own chat template, if it ships one; read from the file's header when not loaded."""
        if self._template is None:
            if self._llama is not None:
                value = self._llama.metadata.get("tokenizer.chat_template")
            else:
                from paperdesk.core.llm.gguf import read_metadata

                if not self.model_path.is_file():
                    raise ConfigError(f"no model file at {self.model_path}; set llm.model_path or put a GGUF in models/")
                value = read_metadata(self.model_path, {"tokenizer.chat_template"}).get("tokenizer.chat_template")
            self._template = (value or None,)
        return self._template[0]

    def stream(self, request: GenerationRequest, cancel: CancelToken | None = None
               ) -> Iterator[tuple[str, str | None]]:
        yield_to_ui()  # this thread and the threads llama.cpp starts from it run below the UI
        llama = self.llama()
        with self._holding(cancel) as held:
            if not held:
                return  # cancelled while waiting for the model: generate() marks it cancelled
            try:
                yield from self._stream(llama, request)
            except _Aborted:
                return  # generate() sees the cancelled token and marks the result cancelled

    @contextmanager
    def _holding(self, cancel: CancelToken | None) -> Iterator[bool]:
        """Hold the model for one generation, its cancel token the one llama.cpp's callbacks read; False
        (and not held) when `cancel` is cancelled while waiting for another generation to end."""
        while not self._generating.acquire(timeout=0.05):
            if cancel is not None and cancel.cancelled:
                yield False
                return
        try:
            self._cancel = cancel
            yield True
        finally:
            self._cancel = None
            self._generating.release()

    def _stream(self, llama: Any, request: GenerationRequest) -> Iterator[tuple[str, str | None]]:
        options: dict[str, Any] = {
            "max_tokens": request.max_tokens,
            "temperature": request.temperature,
            "stop": request.stop or None,
            "stream": True,
        }
        if request.seed is not None:
            options["seed"] = request.seed
        if request.repeat_penalty is not None:
            options["repeat_penalty"] = request.repeat_penalty
        if request.logit_bias:
            options["logit_bias"] = request.logit_bias
        if request.json_schema is not None:
            from llama_cpp import LlamaGrammar
            import json

            options["grammar"] = LlamaGrammar.from_json_schema(json.dumps(request.json_schema), verbose=False)
        if request.messages is not None and request.fixed_messages > 0 and self.prefix_folder is not None:
            self._prime_opening(llama, request.messages, request.fixed_messages)
        try:
            if request.messages is not None:
                for chunk in llama.create_chat_completion(messages=request.messages, **options):
                    choice = chunk["choices"][0]
                    yield choice.get("delta", {}).get("content") or "", choice.get("finish_reason")
            else:
                for chunk in llama.create_completion(prompt=request.prompt, **options):
                    choice = chunk["choices"][0]
                    yield choice.get("text") or "", choice.get("finish_reason")
        except ValueError as exc:
            if "context window" not in str(exc):
                raise
            raise ConfigError(f"the prompt does not fit the model's window (llm.n_ctx = {self.n_ctx}): {exc}; "
                              "raise llm.n_ctx (4096 is the default)") from None

    def _prime_opening(self, llama: Any, messages: list[dict[str, str]], fixed_messages: int) -> None:
        """Have the model hold its state after the first `fixed_messages` messages, loaded from disk when an
        earlier process saved it; a failure here only costs the time it would have saved."""
        if self._prefixes is None:
            assert self.prefix_folder is not None
            self._prefixes = PrefixStates(self.prefix_folder, self.model_path, self.n_ctx, self.n_batch)
        self.last_opening, self.opening_tokens = "", 0
        try:
            tokens = chat_tokens(llama, messages)
            opening = chat_tokens(llama, messages[:fixed_messages])
            if tokens is None or opening is None:
                return
            # Whole prompt batches only: the rest of the prompt is then evaluated in the same batches as a prompt
            # evaluated at once, so the model's state, and the answer, are the same bit for bit.
            fixed = shared_length(tokens, opening) // self.n_batch * self.n_batch
            if MIN_OPENING <= fixed < len(tokens):
                self.last_opening, self.opening_tokens = prime(llama, self._prefixes, tokens, fixed), fixed
        except _Aborted:
            raise
        except Exception as exc:  # the chat template would not render, say: the request goes ahead as it is
            _log.debug("prompt opening not primed: %s", exc)

    def generate_batch(self, requests: Sequence[GenerationRequest], cancel: CancelToken | None = None,
                       on_finished: Callable[[int, Generation], None] | None = None,
                       on_started: Callable[[int], None] | None = None) -> list[Generation] | None:
        """Write independent chat requests together, one sequence each (batch_decode.py); None (nothing
        run) for a set it cannot: a schema or logit bias, a prompt without the model's own chat template, or
        more than the window holds. `on_started(i)` is called once request i's prompt is read."""
        from paperdesk.core.llm import batch_decode

        if any(r.messages is None or r.json_schema is not None or r.logit_bias for r in requests):
            return None
        yield_to_ui()
        llama = self.llama()
        prompts = [chat_tokens(llama, r.messages) for r in requests]  # type: ignore[arg-type]
        if any(p is None for p in prompts):
            return None
        if not batch_decode.fits(prompts, [r.max_tokens for r in requests], self.n_ctx):  # type: ignore[arg-type]
            return None
        items = [batch_decode.BatchItem(prompt=p, max_tokens=r.max_tokens, stop=list(r.stop), written=bytearray(),
                                        sampler=batch_decode.sampler(llama, r.temperature,
                                                                     r.seed if r.seed is not None else llama._seed,
                                                                     r.repeat_penalty or 1.0))
                 for p, r in zip(prompts, requests)]  # type: ignore[arg-type]
        results: list[Generation | None] = [None] * len(items)
        read: set[int] = set()

        def started(i: int) -> None:
            read.add(i)
            if on_started is not None:
                on_started(i)

        def finished(i: int) -> None:
            item = items[i]
            text = strip_controls(item.text())
            results[i] = Generation(text, item.finish == "cancelled", item.finish or "cancelled", item.tokens,
                                    item.first_s, item.end_s or 0.0)
            if on_finished is not None:
                on_finished(i, results[i])  # type: ignore[arg-type]

        failed = False
        with self._holding(cancel) as held:
            if not held:
                return [Generation("", True, "cancelled", 0, None, 0.0) for _ in requests]
            watch = self._abort_flag is not None and self._abort_flag.callback is not None and cancel is not None
            METER.begin()
            try:
                with (self._abort_flag.watching(cancel) if watch else nullcontext()):  # type: ignore[union-attr]
                    batch_decode.decode_many(
                        llama, items, self.n_threads, self.n_batch,
                        cancelled=lambda: cancel is not None and cancel.cancelled, on_token=METER.token,
                        on_finished=finished, on_read=started,
                        abort=(self._abort_flag.callback, self._abort_flag.data) if watch else None)  # type: ignore[union-attr]
            except RuntimeError as exc:  # no memory for the batch's context, say: written one by one below
                _log.warning("writing %d requests together failed (%s); writing them one by one", len(items), exc)
                failed = True
            finally:
                METER.end()
                for item in items:
                    item.sampler.close()
        for i, item in enumerate(items):
            if results[i] is None:  # cancelled, or the batch failed, before it ended
                if failed:
                    if i not in read:
                        started(i)
                    results[i] = generate(self, requests[i], cancel=cancel)
                    if on_finished is not None:
                        on_finished(i, results[i])  # type: ignore[arg-type]
                else:
                    finished(i)
        return results  # type: ignore[return-value]

    def yes_margins(self, system: str, opening: str, items: Sequence[str], cancel: CancelToken | None = None,
                    seconds: float | None = None) -> list[float]:
        """The model's log-odds of replying "yes" over "no" to `opening` followed by each item (yes_no.py), in
        order; fewer come back when `cancel` is cancelled or `seconds` have passed (counted from the first
        item, so a slower machine scores fewer). It holds the model as a generation does."""
        from paperdesk.core.llm import yes_no

        yield_to_ui()
        llama = self.llama()
        with self._holding(cancel) as held:
            if not held:
                return []
            deadline = None if seconds is None else time.monotonic() + seconds
            try:
                return yes_no.margins(llama, system, opening, items, stop=lambda: (
                    (cancel is not None and cancel.cancelled) or
                    (deadline is not None and time.monotonic() > deadline)))
            except _Aborted:
                return []

    def prompt_room(self, prompt: str, max_tokens: int) -> int:
        """Tokens left in the window once `prompt` (with a chat template's overhead) and `max_tokens` are in it."""
        llama = self.llama()
        used = len(llama.tokenize(prompt.encode("utf-8", errors="ignore"), add_bos=True, special=False))
        overhead = CHAT_OVERHEAD if self.chat_template else 0
        return self.n_ctx - used - overhead - max_tokens

