"""A loaded model's own yes-or-no on each of several items, read from its next-token scores.

Nothing is generated: each item's prompt (a shared opening, then the item and the question asked about it, as
one user turn of the model's chat template, or plain text for a model without one) is evaluated and the scores
of the reply's first token are read. The margin is the log-odds of "yes" over "no" (every casing and leading
space the vocabulary has), so it ranks items by how sure the model is, not only by which word it would pick.
Every item's prompt opens the same way (the system message and the question), so the model's cache keeps that
opening and each later item costs only its own tokens.
"""

from __future__ import annotations

from typing import Any, Callable, Sequence

import numpy as np

from paperdesk.core.llm.prefix_states import chat_tokens, shared_length

YES = ("yes", "Yes", "YES", " yes", " Yes")
NO = ("no", "No", "NO", " no", " No")
MAX_ITEM_WORDS = 120  # a longer item is cut: its opening words say what it is about


def reply_tokens(llama: Any, words: Sequence[str]) -> list[int]:
    """The distinct first tokens of `words` in this model's vocabulary."""
    found: list[int] = []
    for word in words:
        tokens = llama.tokenize(word.encode("utf-8"), add_bos=False, special=False)
        if tokens and tokens[0] not in found:
            found.append(tokens[0])
    return found


def _cut(item: str) -> str:
    """An item's lines, each cut to MAX_ITEM_WORDS words."""
    return "\n".join(" ".join(line.split()[:MAX_ITEM_WORDS]) for line in item.splitlines())


def messages(system: str, opening: str, item: str) -> list[dict[str, str]]:
    """One item's chat: the system message, then `opening` and the item (`_cut`) on lines of one user turn."""
    return [{"role": "system", "content": system}, {"role": "user", "content": f"{opening}\n{_cut(item)}"}]


def prompt_tokens(llama: Any, system: str, opening: str, item: str) -> list[int]:
    """The tokens of one item's prompt (`messages`): chat turns when the model has its own template, else plain
    text."""
    tokens = chat_tokens(llama, messages(system, opening, item))
    if tokens is not None:
        return tokens
    text = f"{system}\n\n{opening}\n{_cut(item)}\nAnswer (yes or no):"
    return list(llama.tokenize(text.encode("utf-8"), add_bos=True, special=False))


def margin(llama: Any, tokens: Sequence[int], yes: Sequence[int], no: Sequence[int]) -> float:
    """Evaluate `tokens` (reusing the cached tokens they open with) and return log P(yes) - log P(no) for
    the next token."""
    held = shared_length(llama.input_ids[: llama.n_tokens], tokens)
    llama.n_tokens = min(held, len(tokens) - 1)  # at least one token is evaluated, so its scores are fresh
    llama.eval(list(tokens[llama.n_tokens:]))
    logits = np.ctypeslib.as_array(llama._ctx.get_logits(), shape=(llama.n_vocab(),)).astype(np.float64)
    top = logits.max()
    return float(np.log(np.exp(logits[list(yes)] - top).sum()) - np.log(np.exp(logits[list(no)] - top).sum()))


def margins(llama: Any, system: str, opening: str, items: Sequence[str],
            stop: Callable[[], bool] = lambda: False) -> list[float]:
    """Each item's yes-over-no margin, in order, until `stop()` says so before an item (then fewer come back);
    items that would not fit the model's window are not scored either. Each prompt is `opening` (the question,
    shared, so cached) followed by the item (what is judged, then the instruction asking about it)."""
    yes, no = reply_tokens(llama, YES), reply_tokens(llama, NO)
    out: list[float] = []
    for item in items:
        if stop():
            break
        tokens = prompt_tokens(llama, system, opening, item)
        if len(tokens) >= llama.n_ctx():
            break
        out.append(margin(llama, tokens, yes, no))
    return out
