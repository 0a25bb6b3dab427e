"""A small prompt-prefix cache for the local model, for callers that alternate between prompt families.

llama.cpp already reuses the evaluated prefix of the previous prompt. A
discussion alternates two prompts (the student's few-shot, then the teacher's
few-shot with passages), so each call evaluates its few-shot block again: on
2 cores that prompt evaluation, not the few generated tokens, is most of a
turn (measured by `bench discuss`). Keeping the state after the last call of
each family lets the next call of that family start after the shared prefix.
"""

from __future__ import annotations

from typing import Any

ENTRIES = 2  # one state per prompt family; each also holds a copy of the logits buffer (~128 MB for Gemma 3)


def enable_prompt_cache(backend: Any, entries: int = ENTRIES) -> bool:
    """Give a local llama.cpp backend a prefix cache of `entries` states; False for other backends.

    Loads the model if it is not loaded yet (the caller is about to generate anyway).
    """
    llama_of = getattr(backend, "llama", None)
    if not callable(llama_of):
        return False  # a remote endpoint (or a test stand-in) keeps its own caching
    try:
        from llama_cpp import LlamaRAMCache
    except ImportError:
        return False

    class PrefixCache(LlamaRAMCache):
        """LlamaRAMCache bounded by entry count: its byte capacity does not count the logits copies."""

        def __setitem__(self, key: Any, value: Any) -> None:
            super().__setitem__(key, value)
            while len(self.cache_state) > entries:
                self.cache_state.popitem(last=False)

    llama = llama_of()
    if getattr(llama, "cache", None) is None:
        llama.set_cache(PrefixCache(capacity_bytes=1 << 40))
    return True
