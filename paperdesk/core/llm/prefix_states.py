"""The model's state after a prompt's fixed opening, kept on disk so that a new process skips evaluating it.

An answer's chat prompt opens with the same system message and worked turns every
time (about 400 tokens), then the passages and the question. Within one process
llama.cpp reuses whatever prefix the last prompt shared; a command-line `ask`
starts a new process, and on 2 cores evaluating that opening is a third or more
of the answer's time. A request that says how many of its leading messages are
fixed (`GenerationRequest.fixed_messages`) has the model's state after them
saved once and loaded by later processes, so they evaluate only the rest.

The file is keyed by the model file, the llama.cpp build and context size, and
the opening's exact tokens; it is checksummed, written whole or not at all, and
any file that fails its check is removed and ignored: the cache can cost a
re-evaluation, never a wrong state. The opening kept is a whole number of the
backend's prompt batches, evaluated on its own also when no file exists yet,
so the rest of the prompt is evaluated in the same batches as before and an
answer is the same, bit for bit, whether its opening came from disk, from its
own evaluation, or from a prompt evaluated at once; and a model that read
another prompt of the same opening goes back to the opening's end, so an answer
does not depend on what was asked before it in the same process.
"""

from __future__ import annotations

import ctypes
import hashlib
import logging
import os
import struct
from pathlib import Path
from typing import Any, Sequence

import platformdirs

from paperdesk.core.atomic_file import write_bytes

_log = logging.getLogger("paperdesk.llama")

MAGIC = b"PDPFX1\n"
KEEP = 8  # files kept in the folder; the least recently used go first


def default_folder() -> Path:
    return Path(platformdirs.user_cache_dir("paperdesk")) / "prefix-states"


def chat_tokens(llama: Any, messages: Sequence[dict[str, str]]) -> list[int] | None:
    """The tokens llama-cpp-python's chat handler would evaluate for `messages`, for a model that uses its own
    GGUF chat template; None for any other chat format (its prompt is not rebuilt here)."""
    if getattr(llama, "chat_format", None) != "chat_template.default":
        return None
    template = llama.metadata.get("tokenizer.chat_template")
    if not template:
        return None
    from llama_cpp import llama_chat_format

    eos_id, bos_id = llama.token_eos(), llama.token_bos()
    eos = llama._model.token_get_text(eos_id) if eos_id != -1 else ""
    bos = llama._model.token_get_text(bos_id) if bos_id != -1 else ""
    formatter = llama_chat_format.Jinja2ChatFormatter(template=template, eos_token=eos, bos_token=bos,
                                                      stop_token_ids=[eos_id])
    result = formatter(messages=list(messages))
    return list(llama.tokenize(result.prompt.encode("utf-8"), add_bos=not result.added_special, special=True))


def shared_length(a: Sequence[int], b: Sequence[int]) -> int:
    n = 0
    for x, y in zip(a, b):
        if x != y:
            break
        n += 1
    return n


class PrefixStates:
    """State files of fixed prompt openings, for one model file and llama.cpp setup."""

    def __init__(self, folder: Path, model_path: Path, n_ctx: int, n_batch: int, keep: int = KEEP) -> None:
        self.folder = folder
        self.keep = keep
        try:
            stat = model_path.stat()
            identity = f"{model_path.resolve()}|{stat.st_size}|{stat.st_mtime_ns}"
        except OSError:
            identity = str(model_path)
        try:
            import llama_cpp

            build = llama_cpp.__version__
        except ImportError:
            build = "?"
        self._setup = f"{identity}|{build}|{n_ctx}|{n_batch}".encode()

    def path_for(self, tokens: Sequence[int]) -> Path:
        digest = hashlib.sha256(self._setup + struct.pack(f"<{len(tokens)}i", *tokens)).hexdigest()
        return self.folder / f"{digest[:32]}.state"

    def load(self, tokens: Sequence[int]) -> bytes | None:
        """The saved state after exactly `tokens`, or None (no file, or one that fails its checks: removed)."""
        path = self.path_for(tokens)
        try:
            data = path.read_bytes()
        except OSError:
            return None
        head = len(MAGIC) + 32
        if (len(data) < head + 4 or not data.startswith(MAGIC)
                or hashlib.sha256(data[head:]).digest() != data[len(MAGIC):head]):
            path.unlink(missing_ok=True)
            return None
        (n,) = struct.unpack_from("<i", data, head)
        body = head + 4 + 4 * n
        if n != len(tokens) or list(struct.unpack_from(f"<{n}i", data, head + 4)) != list(tokens):
            return None  # a hash collision on the name: leave that file to its own opening
        try:
            os.utime(path)  # recently used: kept longest
        except OSError:
            pass
        return data[body:]

    def save(self, tokens: Sequence[int], state: bytes) -> None:
        """Keep `state` (the model's state after exactly `tokens`); a full disk or a read-only folder only
        means the next process evaluates the opening again."""
        payload = struct.pack(f"<i{len(tokens)}i", len(tokens), *tokens) + state
        try:
            self.folder.mkdir(parents=True, exist_ok=True)
            write_bytes(self.path_for(tokens), MAGIC + hashlib.sha256(payload).digest() + payload)
            self._trim()
        except OSError as exc:
            _log.debug("prompt opening state not saved: %s", exc)

    def _trim(self) -> None:
        files = sorted(self.folder.glob("*.state"), key=lambda p: p.stat().st_mtime_ns, reverse=True)
        for old in files[self.keep:]:
            old.unlink(missing_ok=True)


def prime(llama: Any, states: PrefixStates, tokens: Sequence[int], fixed: int) -> str:
    """Make `llama` hold the state after the first `fixed` of `tokens` (the prompt's fixed opening) and no
    more, from `states` or by evaluating it (then saved): the rest of the prompt is then evaluated from the
    same point whatever the model read before, so an answer does not depend on the prompts before it. A
    model that holds the whole prompt already (the same prompt asked again) keeps it.
    Returns what happened: "held", "loaded" or "evaluated"."""
    opening = list(tokens[:fixed])
    live = llama.input_ids[: llama.n_tokens].tolist()
    if shared_length(live, tokens) >= len(tokens) - 1:
        return "held"
    held = shared_length(live, opening)
    if held >= fixed:
        llama.n_tokens = fixed  # what it read after the opening is evaluated again, in the same batches
        return "held"
    state = states.load(opening)
    if state is not None:
        if _set_state(llama, state):
            llama.input_ids[:fixed] = opening
            llama.n_tokens = fixed
            llama._requires_eval = True  # no logits of a live decode: the prompt's rest is evaluated before sampling
            return "loaded"
        held = 0  # a refused state may have left the model's memory cleared or half set: start over
    llama.n_tokens = held  # eval() drops what the model held after that point, then evaluates the rest
    llama.eval(opening[held:])
    states.save(opening, _get_state(llama))
    return "evaluated"


def _get_state(llama: Any) -> bytes:
    import llama_cpp

    size = llama_cpp.llama_state_get_size(llama._ctx.ctx)
    buffer = (ctypes.c_uint8 * int(size))()
    written = llama_cpp.llama_state_get_data(llama._ctx.ctx, buffer, size)
    return bytes(buffer[: int(written)])


def _set_state(llama: Any, state: bytes) -> bool:
    import llama_cpp

    buffer = (ctypes.c_uint8 * len(state)).from_buffer_copy(state)
    try:
        return int(llama_cpp.llama_state_set_data(llama._ctx.ctx, buffer, len(state))) == len(state)
    except Exception as exc:  # a state llama.cpp refuses: evaluate the opening instead
        _log.debug("prompt opening state not loaded: %s", exc)
        return False
