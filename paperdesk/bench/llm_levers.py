"""`paperdesk bench llm --model NAME ...`: per model, prompt and generation tokens/s and the gain of two levers.

(a) Reusing the KV state of a shared prompt prefix: the same paper context, asked
    a second question. "cold" evaluates the whole prompt; "follow-up" comes right
    after a call on the same context (llama.cpp keeps the common prefix of the last
    prompt); "after another prompt" has a different prompt in between, first
    without and then with the prefix-state cache (prompt_cache.py, what a
    discussion's alternating student and teacher prompts use).
(b) Prompt-lookup decoding (llama-cpp-python's LlamaPromptLookupDecoding as the
    draft model) on a prompt that asks for a verbatim quote: generation tokens/s
    with and without it, greedy both times, and whether the texts are the same.
(c) For a model with its own chat template: an answer prompt (the app's system
    message and worked turns, then five passages of the paper) in a new model
    instance, as a new `paperdesk ask` process meets it: the first token with
    the whole prompt evaluated, with its fixed opening evaluated and saved
    (prefix_states.py), and with that opening loaded from disk; and whether the
    three texts are the same.
(d) For a model with its own chat template: five questions on the same passage
    written one after another and written together (batch_decode.py, one
    sequence each, what a summary's notes use): seconds for the five, and
    whether the texts are the same (greedy both times).

The context is real text, the CiteSee fixture paper's first page. Every figure is
the median of --repeats runs with its min-max spread: the CPU may be shared.
"""

from __future__ import annotations

import argparse
import os
import statistics
import time
from pathlib import Path
from typing import Any, Callable

from paperdesk.bench.common import emit, note
from paperdesk.core.config import Settings

PAPER = Path(__file__).resolve().parents[2] / "tests" / "fixtures" / "papers" / "2302.07302v1.pdf"
CONTEXT_WORDS = 330
QUESTIONS = ("What problem does the paper address?", "What does the tool highlight for the reader?",
             "How was the tool evaluated?")


def _context() -> str:
    import pymupdf

    with pymupdf.open(PAPER) as doc:
        words = " ".join(page.get_text() for page in doc[:2]).split()
    return " ".join(words[:CONTEXT_WORDS])


def _prompt(context: str, question: str) -> str:
    return f"Passage from a paper:\n{context}\n\nQuestion: {question}\nAnswer in one sentence:"


def _quote_prompt(context: str) -> str:
    return (f"Passage from a paper:\n{context}\n\nCopy the passage's first three sentences exactly, word for "
            "word:\n")


def _spread(values: list[float]) -> dict[str, float]:
    return {"median": round(statistics.median(values), 2), "min": round(min(values), 2), "max": round(max(values), 2)}


def _ttft(llama: Any, prompt: str, tokens: int = 1) -> tuple[float, float, str]:
    """Seconds to the first token, total seconds, text (greedy, end of text banned)."""
    start, first, text = time.perf_counter(), None, []
    for chunk in llama.create_completion(prompt, max_tokens=tokens, temperature=0.0, stream=True,
                                         logit_bias={llama.token_eos(): -100.0}):
        if first is None:
            first = time.perf_counter() - start
        text.append(chunk["choices"][0]["text"])
    return first or 0.0, time.perf_counter() - start, "".join(text)


def _opening(path: Path, threads: int, repeats: int, tokens: int, context: str) -> dict[str, Any] | None:
    """Lever (c); None for a model without its own chat template (its answer prompt is a completion)."""
    import tempfile

    from paperdesk.core.agents import answer_prompt
    from paperdesk.core.library.library import Hit
    from paperdesk.core.llm.backend import GenerationRequest, generate
    from paperdesk.core.llm.local import LocalBackend

    def fresh(folder: Path | None) -> LocalBackend:
        return LocalBackend(path, n_ctx=2048, n_threads=threads, prefix_folder=folder)

    if not fresh(None).chat_template:
        return None
    words = context.split()
    size = len(words) // 5
    passages = [" ".join(words[i * size:(i + 1) * size]) for i in range(5)]
    hits = [Hit("p", PAPER.stem, i, 1, 1, "", "", 1.0, None, None) for i in range(5)]
    _, messages, _ = answer_prompt.build(True, hits, passages, QUESTIONS[1])
    assert messages is not None
    request = GenerationRequest(messages=messages, max_tokens=tokens, temperature=0.0,
                                fixed_messages=len(messages) - 1)
    found: dict[str, list[float]] = {"whole": [], "evaluated": [], "loaded": []}
    texts: set[str] = set()
    opening = 0
    for _ in range(repeats):
        with tempfile.TemporaryDirectory() as folder:
            for kind, where in (("whole", None), ("evaluated", Path(folder)), ("loaded", Path(folder))):
                backend = fresh(where)
                backend.llama()  # a new process loads the model either way: not part of the lever's figure
                result = generate(backend, request)
                found[kind].append(result.first_token_s or 0.0)
                texts.add(result.text)
                opening = opening or backend.opening_tokens
                del backend
    return {"opening_tokens": opening, **{f"{k}_first_token_s": _spread(v) for k, v in found.items()},
            "gain": round(statistics.median(found["whole"]) / statistics.median(found["loaded"]), 2),
            "same_text": len(texts) == 1}


def _together(path: Path, threads: int, repeats: int, tokens: int, context: str) -> dict[str, Any] | None:
    """Lever (d); None for a model without its own chat template."""
    from paperdesk.core.llm.backend import GenerationRequest, generate, generate_all
    from paperdesk.core.llm.local import LocalBackend

    backend = LocalBackend(path, n_ctx=2048, n_threads=threads)
    if not backend.chat_template:
        return None
    backend.llama()
    questions = QUESTIONS + ("Who are the authors?", "What is the paper's main finding?")
    requests = [GenerationRequest(messages=[{"role": "system", "content": "Answer in one sentence."},
                                            {"role": "user", "content": f"Passage:\n{context}\n\nQuestion: {q}"}],
                                  max_tokens=tokens, temperature=0.0) for q in questions]
    alone_s, together_s, same, written = [], [], True, 0
    for _ in range(repeats):
        backend.llama().reset()  # both ways start from an empty cache: the passage is read once either way
        start = time.perf_counter()
        alone = [generate(backend, r) for r in requests]
        alone_s.append(time.perf_counter() - start)
        start = time.perf_counter()
        together = generate_all(backend, requests)
        together_s.append(time.perf_counter() - start)
        same = same and [g.text for g in alone] == [g.text for g in together]
        written = sum(g.tokens for g in together)
    del backend
    return {"requests": len(requests), "tokens_written": written, "one_after_another_s": _spread(alone_s),
            "together_s": _spread(together_s),
            "gain": round(statistics.median(alone_s) / statistics.median(together_s), 2), "same_text": same}


def _levers(path: Path, threads: int, repeats: int, tokens: int) -> dict[str, Any]:
    from llama_cpp import Llama
    from llama_cpp.llama_speculative import LlamaPromptLookupDecoding

    from paperdesk.core.llm.local import LocalBackend
    from paperdesk.core.llm.prompt_cache import enable_prompt_cache

    context = _context()
    backend = LocalBackend(path, n_ctx=2048, n_threads=threads)
    llama = backend.llama()  # the app's own load (crash probe first)
    prompts = [_prompt(context, q) for q in QUESTIONS]
    n_prompt = len(llama.tokenize(prompts[0].encode()))
    other = "Write a haiku about autumn leaves:"

    cold, follow, between, cached, gen_tps, prompt_tps = [], [], [], [], [], []
    for r in range(repeats):
        llama.reset()
        llama.set_cache(None)
        first, total, _ = _ttft(llama, prompts[0], tokens)
        cold.append(first)
        prompt_tps.append(n_prompt / first)
        gen_tps.append((tokens - 1) / max(total - first, 1e-9))
        follow.append(_ttft(llama, prompts[1 + r % 2])[0])  # same context, next question
        _ttft(llama, other)
        between.append(_ttft(llama, prompts[0])[0])  # a different prompt came in between, no cache
    enable_prompt_cache(backend)
    for r in range(repeats):
        _ttft(llama, prompts[0])  # its state is kept
        _ttft(llama, other)
        cached.append(_ttft(llama, prompts[1 + r % 2])[0])
    llama.set_cache(None)

    quote = _quote_prompt(context)
    plain_tps, plain_text = [], ""
    for _ in range(repeats):
        llama.reset()
        first, total, plain_text = _ttft(llama, quote, tokens)
        plain_tps.append((tokens - 1) / max(total - first, 1e-9))
    del backend, llama
    lookup_tps, lookup_text, problem = [], "", ""
    try:
        # logits_all must be passed too: llama-cpp-python sizes its scores buffer from the argument, not from
        # the draft model, and the verification reads the scores of every drafted position.
        lookup = Llama(model_path=str(path), n_ctx=1024, n_threads=threads, verbose=False, logits_all=True,
                       draft_model=LlamaPromptLookupDecoding(num_pred_tokens=10))
        for _ in range(repeats):
            lookup.reset()
            first, total, lookup_text = _ttft(lookup, quote, tokens)
            lookup_tps.append((tokens - 1) / max(total - first, 1e-9))
        del lookup
    except (ValueError, RuntimeError, MemoryError) as exc:
        problem = f"{type(exc).__name__}: {exc}"
    lookup_tps = lookup_tps or [0.0]
    opening = _opening(path, threads, repeats, tokens, context)
    together = _together(path, threads, repeats, tokens, context)
    return {
        "prompt_tokens": n_prompt, "new_tokens": tokens,
        "prompt_tps": _spread(prompt_tps), "decode_tps": _spread(gen_tps),
        "prefix": {"cold_first_token_s": _spread(cold), "follow_up_first_token_s": _spread(follow),
                   "after_another_prompt_s": _spread(between), "after_another_prompt_cached_s": _spread(cached),
                   "follow_up_gain": round(statistics.median(cold) / statistics.median(follow), 2),
                   "cache_gain": round(statistics.median(between) / statistics.median(cached), 2)},
        "prompt_lookup": {"plain_decode_tps": _spread(plain_tps), "lookup_decode_tps": _spread(lookup_tps),
                          "gain": round(statistics.median(lookup_tps) / statistics.median(plain_tps), 2),
                          "same_text": plain_text == lookup_text, "error": problem},
        "opening": opening,
        "together": together,
    }


def run(args: argparse.Namespace, settings: Settings) -> int:
    from paperdesk.core.llm import speeds
    from paperdesk.core.llm.models import resolve_gguf

    threads = settings["llm.n_threads"] or os.cpu_count() or 1
    report: dict[str, Any] = {"threads": threads, "repeats": args.repeats, "load_average": os.getloadavg()[0],
                              "models": {}}
    lines = []
    for name in args.model:
        path = resolve_gguf(name, settings, "--model")
        note(f"{name}: {path.name}, {args.repeats} repeats")
        found = _levers(path, threads, args.repeats, args.tokens)
        report["models"][name] = found
        speeds.record(path, {"decode_tps": found["decode_tps"]["median"], "prompt_tps": found["prompt_tps"]["median"],
                             "source": f"bench llm, {threads} threads"})
        p, lk = found["prefix"], found["prompt_lookup"]
        show: Callable[[dict[str, float]], str] = lambda s: f"{s['median']:.2f} ({s['min']:.2f}-{s['max']:.2f})"
        lines += [
            f"{name}: {found['prompt_tokens']} prompt tokens, {found['new_tokens']} new; median (min-max) of "
            f"{args.repeats}",
            f"  prompt {show(found['prompt_tps'])} tok/s   generation {show(found['decode_tps'])} tok/s",
            f"  first token: cold {show(p['cold_first_token_s'])} s, follow-up on the same context "
            f"{show(p['follow_up_first_token_s'])} s (x{p['follow_up_gain']})",
            f"  after another prompt: {show(p['after_another_prompt_s'])} s, with the prefix cache "
            f"{show(p['after_another_prompt_cached_s'])} s (x{p['cache_gain']})",
            f"  quote prompt, generation: plain {show(lk['plain_decode_tps'])} tok/s, prompt lookup "
            f"{show(lk['lookup_decode_tps'])} tok/s (x{lk['gain']}, same text: {lk['same_text']})",
        ]
        if found["opening"]:
            o = found["opening"]
            lines.append(f"  answer prompt in a new instance, first token: whole {show(o['whole_first_token_s'])} s, "
                         f"opening evaluated and saved {show(o['evaluated_first_token_s'])} s, loaded "
                         f"{show(o['loaded_first_token_s'])} s (x{o['gain']}; {o['opening_tokens']} tokens "
                         f"loaded; same text: {o['same_text']})")
        if found["together"]:
            t = found["together"]
            lines.append(f"  {t['requests']} questions on one passage ({t['tokens_written']} tokens written): one after "
                         f"another {show(t['one_after_another_s'])} s, together {show(t['together_s'])} s "
                         f"(x{t['gain']}; same text: {t['same_text']})")
    lines.append(f"load average at start {report['load_average']:.1f} on {os.cpu_count()} cores")
    emit(report, args.json, lines)
    return 0
