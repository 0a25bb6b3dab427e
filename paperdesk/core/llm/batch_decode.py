"""Several independent chat prompts written at once: one llama.cpp context, one sequence each.

On a 2-core CPU a decode step of seven tokens takes about three times as long as a step of one (about
230 ms against 73 ms for the default writer), so seven sequences written together, a token of each per
step, take about half the time of seven generations one after another: a summary's notes on seven
passages were written in 15 s instead of 31 s. The prompts' common opening is read once and copied to
every sequence; each prompt's own tokens are read a sequence at a time, as fast as alone.

Each sequence is sampled as llama-cpp-python samples a request alone (the same sampler chain, defaults
and seed). A step of several tokens rounds its arithmetic differently from a step of one, so where two
next tokens score nearly alike a sequence can take the other: in `bench llm`, four of five greedy answers
came out word for word the same.
"""

from __future__ import annotations

import ctypes
import time
from dataclasses import dataclass
from typing import Any, Callable, Sequence

TOP_K, TOP_P, MIN_P, TYPICAL_P = 40, 0.95, 0.05, 1.0  # llama-cpp-python's defaults for a completion
PENALTY_LAST_N = 64  # the tokens a repeat penalty looks back over (llama-cpp-python's default)


class Aborted(Exception):
    """A decode stopped by the abort callback (the work was cancelled)."""


@dataclass
class BatchItem:
    """One prompt's progress: its tokens, what it has written, and why it ended (None while it runs)."""

    prompt: list[int]
    max_tokens: int
    stop: list[str]
    sampler: Any
    written: bytearray
    tokens: int = 0
    finish: str | None = None
    next_token: int | None = None
    first_s: float | None = None
    end_s: float | None = None

    def text(self) -> str:
        text = bytes(self.written).decode("utf-8", errors="ignore")
        cut = min((i for i in (text.find(s) for s in self.stop if s) if i >= 0), default=-1)
        return text if cut < 0 else text[:cut]


def fits(prompts: Sequence[Sequence[int]], max_tokens: Sequence[int], n_ctx: int, windows: int = 4) -> bool:
    """Whether each prompt and what it may write fit the model's window `n_ctx`, and their cache streams
    (one per prompt, each as long as the longest needs) together hold no more than `windows` windows."""
    need = max((len(p) + m for p, m in zip(prompts, max_tokens)), default=0)
    return need <= n_ctx and len(prompts) * stream_length(need) <= windows * n_ctx


def stream_length(need: int) -> int:
    """A sequence's cache stream: `need` cells rounded up to llama.cpp's 256-cell step."""
    return -(-need // 256) * 256


def common_length(prompts: Sequence[Sequence[int]]) -> int:
    """How many leading tokens every prompt shares, leaving each at least one token of its own."""
    if not prompts:
        return 0
    n = min(len(p) for p in prompts) - 1
    for i in range(max(n, 0)):
        if any(p[i] != prompts[0][i] for p in prompts[1:]):
            return i
    return max(n, 0)


def sampler(llama: Any, temperature: float, seed: int, repeat_penalty: float) -> Any:
    """The sampler chain llama-cpp-python builds for a request with these settings."""
    from llama_cpp import _internals

    chain = _internals.LlamaSampler()
    chain.add_penalties(n_vocab=llama.n_vocab(), penalty_last_n=PENALTY_LAST_N, penalty_repeat=repeat_penalty,
                        penalty_freq=0.0, penalty_present=0.0)
    if temperature <= 0:
        chain.add_greedy()
    else:
        chain.add_top_k(TOP_K)
        chain.add_typical(TYPICAL_P, 1)
        chain.add_top_p(TOP_P, 1)
        chain.add_min_p(MIN_P, 1)
        chain.add_temp(temperature)
        chain.add_dist(seed)
    return chain


def decode_many(llama: Any, sequences: list[BatchItem], n_threads: int, n_batch: int,
                cancelled: Callable[[], bool], on_token: Callable[[], None] = lambda: None,
                on_finished: Callable[[int], None] = lambda _i: None,
                on_read: Callable[[int], None] = lambda _i: None,
                abort: tuple[Any, Any] | None = None) -> None:
    """Write every sequence to its end in a context of its own beside `llama`'s (the model's weights are
    shared; `llama`'s own context and the state it holds are left as they are). `cancelled` is asked
    between decodes; `abort` (a llama.cpp abort callback and its data) is asked inside them. A cancel
    leaves each unfinished sequence marked "cancelled". `on_read(i)` is called once sequence i's prompt is
    read (the prompts are read one after another, then written together), `on_finished(i)` as it ends."""
    import llama_cpp

    start = time.perf_counter()
    params = llama_cpp.llama_context_params.from_buffer_copy(llama.context_params)
    params.n_seq_max = len(sequences)
    # one cache stream per sequence, each as long as the longest sequence needs: a token then attends over
    # its own sequence's cells only, not over every sequence's (a shared cache read the prompts about 12% slower)
    need = max(len(s.prompt) + s.max_tokens for s in sequences)
    params.n_ctx = len(sequences) * stream_length(need)
    params.kv_unified = False
    params.n_threads = params.n_threads_batch = n_threads
    ctx = llama_cpp.llama_init_from_model(llama._model.model, params)
    if not ctx:
        raise RuntimeError("llama.cpp could not make a context for the batch")
    vocab = llama_cpp.llama_model_get_vocab(llama._model.model)
    width = max(n_batch, len(sequences))
    batch = llama_cpp.llama_batch_init(width, 0, len(sequences))
    piece = ctypes.create_string_buffer(64)
    if abort is not None:
        llama_cpp.llama_set_abort_callback(ctx, abort[0], abort[1])

    def decode(entries: list[tuple[int, int, list[int], bool]]) -> None:
        """entries: (token, position, sequence ids, wants logits)."""
        batch.n_tokens = len(entries)
        for k, (token, pos, seqs, logits) in enumerate(entries):
            batch.token[k] = token
            batch.pos[k] = pos
            batch.n_seq_id[k] = len(seqs)
            for j, s in enumerate(seqs):
                batch.seq_id[k][j] = s
            batch.logits[k] = logits
        code = llama_cpp.llama_decode(ctx, batch)
        if code == 2 or cancelled():
            raise Aborted()
        if code != 0:
            raise RuntimeError(f"llama_decode returned {code}")

    def token_bytes(token: int) -> bytes:
        nonlocal piece
        n = llama_cpp.llama_token_to_piece(vocab, token, piece, len(piece), 0, False)
        if n < 0:  # a longer piece than the buffer: -n is the length it needs
            piece = ctypes.create_string_buffer(-n)
            n = llama_cpp.llama_token_to_piece(vocab, token, piece, len(piece), 0, False)
        return piece.raw[:max(n, 0)]

    def take(i: int, idx: int) -> None:
        """Sample sequence i's next token from output `idx` of the last decode."""
        seq = sequences[i]
        token = llama_cpp.llama_sampler_sample(seq.sampler.sampler, ctx, idx)
        if llama_cpp.llama_vocab_is_eog(vocab, token):
            finish(i, "stop")
            return
        seq.written += token_bytes(token)
        seq.tokens += 1
        if seq.first_s is None:
            seq.first_s = time.perf_counter() - start
        on_token()
        if seq.stop and any(s and s in bytes(seq.written).decode("utf-8", errors="ignore") for s in seq.stop):
            finish(i, "stop")
        elif seq.tokens >= seq.max_tokens:
            finish(i, "length")
        else:
            seq.next_token = token

    def finish(i: int, reason: str) -> None:
        sequences[i].finish, sequences[i].next_token = reason, None
        sequences[i].end_s = time.perf_counter() - start
        on_finished(i)

    try:
        shared = common_length([s.prompt for s in sequences])
        opening = sequences[0].prompt[:shared]
        for lo in range(0, shared, width):
            decode([(t, lo + k, [0], False) for k, t in enumerate(opening[lo:lo + width])])
        memory = llama_cpp.llama_get_memory(ctx)
        for i in range(1, len(sequences)):
            llama_cpp.llama_memory_seq_cp(memory, 0, i, -1, -1)
        # each prompt's own tokens, a sequence at a time (a batch mixing sequences is split by llama.cpp into
        # smaller ones, which read slower); a sequence is sampled from the decode that read its last token,
        # before the next decode overwrites the outputs
        for i, seq in enumerate(sequences):
            own = seq.prompt[shared:]
            for lo in range(0, len(own), width):
                part = own[lo:lo + width]
                decode([(t, shared + lo + k, [i], lo + k == len(own) - 1) for k, t in enumerate(part)])
            take(i, (len(own) - 1) % width)
            on_read(i)
        while True:
            running = [i for i, s in enumerate(sequences) if s.finish is None]
            if not running:
                return
            positions = {i: len(sequences[i].prompt) + sequences[i].tokens - 1 for i in running}
            decode([(sequences[i].next_token, positions[i], [i], True) for i in running])
            for k, i in enumerate(running):
                take(i, k)
    except Aborted:
        for i, s in enumerate(sequences):
            if s.finish is None:
                s.finish, s.end_s = "cancelled", time.perf_counter() - start
    finally:
        llama_cpp.llama_batch_free(batch)
        llama_cpp.llama_free(ctx)
