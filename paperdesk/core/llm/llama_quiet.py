"""llama.cpp kept quiet on the terminal without touching the process's streams."""

from __future__ import annotations

import logging
from typing import Any

_log = logging.getLogger("paperdesk.llama")
_log_callback: Any = None  # kept referenced: llama.cpp holds a raw pointer to it


def _quiet_llama_logs() -> None:
    """Send llama.cpp's own log lines to Python logging at debug level instead of the terminal.

    llama.cpp logs harmless notes as errors (the SWA cache notice of Gemma 3); real
    failures reach us as exceptions from the load or the decode.
    """
    global _log_callback
    if _log_callback is not None:
        return
    import ctypes

    import llama_cpp

    @llama_cpp.llama_log_callback
    def forward(level: int, text: bytes, _user: Any) -> None:
        _log.debug("%s", text.decode("utf-8", "replace").rstrip())

    _log_callback = forward
    llama_cpp.llama_log_set(forward, ctypes.c_void_p(0))


class _StreamsLeftAlone:
    """Stands in for llama-cpp-python's `suppress_stdout_stderr`: enters and leaves, touching nothing."""

    def __init__(self, disable: bool = True) -> None:
        pass

    def __enter__(self) -> "_StreamsLeftAlone":
        return self

    def __exit__(self, *_: object) -> None:
        return None


def _keep_std_streams() -> None:
    """Stop llama-cpp-python pointing the whole process's stdout and stderr at /dev/null during a load.

    Its quiet mode does that, file descriptors included, for as long as a load takes (seconds for the
    writer), so whatever another thread writes meanwhile is lost: the TUI's frames, the CLI's stage
    notes and streamed answer. llama.cpp's own log lines already go to Python logging
    (`_quiet_llama_logs`), which is all the quiet mode was for.
    """
    import llama_cpp._internals as internals
    import llama_cpp.llama as llama_module
    import llama_cpp.llama_chat_format as chat_format

    for module in (internals, llama_module, chat_format):
        module.suppress_stdout_stderr = _StreamsLeftAlone  # type: ignore[attr-defined,misc]


def quiet_llama() -> None:
    """Call before loading a model: llama.cpp's notes go to logging and stdout and stderr stay put."""
    _quiet_llama_logs()
    _keep_std_streams()
