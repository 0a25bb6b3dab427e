"""`ask`'s answer: pick the evidence sentences first, then phrase only those, checked, else quote them.

1. selection.select: the writer names the numbered evidence sentences that state the answer, or none;
2. none: the answer says the papers do not hold it and quotes the closest sentences (cited), so the reader
   sees what was there; no figure is offered as the answer;
3. some: the writer phrases an answer from the picked sentences alone; the fact gate holds back each
   sentence whose numbers, names or comparison direction the picked sentences do not state, and prompt
   echoes; if nothing phrased holds (or it is mostly uncited), the picked sentences are quoted instead.
"""

from __future__ import annotations

import time
from typing import Callable

from paperdesk.core.agents import picked_answer, quality, selection
from paperdesk.core.agents.answer_result import (STOPS, SUPPORTED_MIN, AnswerResult, not_found_text,
                                                 source as _source)
from paperdesk.core.agents.attribution import (SOURCE_REF, drop_copied, extract, ground, scaffolding_check,
                                               strip_echo, supported_share, trim_loops, usable)
from paperdesk.core.agents import evidence
from paperdesk.core.agents.fact_gate import FactGate
from paperdesk.core.agents.picked_answer import says_not_found
from paperdesk.core.cancel import CancelToken
from paperdesk.core.library.library import Hit, Library
from paperdesk.core.llm.backend import Backend, generate
from paperdesk.core.llm.prompt_cache import enable_prompt_cache
from paperdesk.core.llm.repeats import drop_repeats
from paperdesk.core.progress import Progress, ProgressCallback
from paperdesk.core.prompts import template

PHRASE = {"temperature": 0.2, "seed": 1, "repeat_penalty": 1.15}


def write_selected(library: Library, backend: Backend, question: str, hits: list[Hit],
                   on_token: Callable[[str], None] | None = None, cancel: CancelToken | None = None,
                   max_tokens: int = 160, note: ProgressCallback | None = None, dialogue: str = "") -> AnswerResult | None:
    """The answer from `hits` (never empty: the caller answers "nothing found" itself); None when the backend's
    reply to the picking was not a list of numbers."""
    start = time.perf_counter()
    chunks = library.store.chunks_by_ids([h.chunk_id for h in hits])
    texts = [chunks[h.chunk_id].text for h in hits]
    windows = evidence_for(library, question, hits, texts)
    if note is not None:
        note(Progress("answer: picking the sentences that state it", 1, 2, "steps"))
    enable_prompt_cache(backend)  # the picking and phrasing prompts alternate: keep both fixed prefixes
    picked = selection.select(backend, hits, windows, question, cancel)
    timings = {"select_s": time.perf_counter() - start}
    if picked.cancelled:
        return AnswerResult("", [], hits, True, {**timings, "total_s": time.perf_counter() - start})
    if not picked.understood:  # a backend that cannot reply with a list: the caller answers from the passages
        return None
    encode = library.embedder.encode
    if not picked.picked:  # nothing states it: say so, and show what was closest
        closest = extract(library.embedder.encode_query(question), windows, encode)
        text = not_found_text(closest)
        if on_token is not None:
            on_token(text)
        return _result(text, hits, timings, start, not_found=True)
    arranged = picked_answer.arrange(picked, hits, windows)
    if note is not None:
        note(Progress("answer: phrasing the picked sentences", 2, 2, "steps"))
    # The writer cites the candidates' numbers; each stands for its passage's place in `arranged`. The facts
    # of a phrased sentence must be in the sentence it cites (with its neighbours); one that cites a sentence
    # it did not pick is held to that sentence, and shown citing it, if it states them.
    place = {h.chunk_id: n for n, h in enumerate(arranged.hits, start=1)}
    to_passage = {i + 1: place[hits[c.hit].chunk_id] for i, c in enumerate(picked.candidates)}
    sources = [selection.with_neighbours(picked.candidates, i) for i in range(len(picked.candidates))]
    assert picked.asked is not None
    request = selection.phrase_request(picked.asked, picked.raw, picked.picked, max_tokens, STOPS, **PHRASE)
    examples = template("select_example")
    echo = scaffolding_check(examples)
    direction = picked_answer.directions(sources)
    gate = FactGate(sources, question, None, lambda s: echo(s) or direction(s))
    result = generate(backend, request, on_token=gate.feed, cancel=cancel)
    shown = picked_answer.renumber(gate.close(cut=result.finish_reason == "length"), to_passage)
    timings["phrase_s"] = time.perf_counter() - start - timings["select_s"]
    if result.cancelled:
        return AnswerResult(shown, [], arranged.hits, True, {**timings, "total_s": time.perf_counter() - start})
    least = 1 if quality.numbers(shown) or SOURCE_REF.search(shown) else 4
    phrased = drop_copied(trim_loops(quality.check(strip_echo(drop_repeats(shown)), least, sources).text,
                                     sources=sources), examples)
    quoted = False
    declined = says_not_found(result.text)  # the raw reply: the gate drops an echoed "none of the sentences"
    if usable(phrased, least) and not declined:
        vectors = encode(arranged.texts)
        text = ground(phrased.strip(), vectors, encode, arranged.texts, arranged.texts).text
        if supported_share(text) < SUPPORTED_MIN:
            text, quoted = picked_answer.quoted(arranged), True
    elif declined:  # the picked sentences did not answer after all
        closest = extract(library.embedder.encode_query(question), windows, encode)
        text = not_found_text(closest)
        if on_token is not None:
            on_token(text)
        return _result(text, hits, timings, start, not_found=True)
    else:
        text, quoted = picked_answer.quoted(arranged), True
    if on_token is not None:
        on_token(text)
    out = _result(text, arranged.hits, timings, start)
    out.fallback = quoted
    out.dropped = [d.sentence for d in gate.dropped]
    out.recited = gate.recited
    return out


def evidence_for(library: Library, question: str, hits: list[Hit], texts: list[str]) -> list[str]:
    """What the writer picks from, per passage (the bench's evidence check reads the same)."""
    return evidence.reading(library, question, hits, texts, selection.READ_WORDS)


def _result(text: str, hits: list[Hit], timings: dict[str, float], start: float,
            not_found: bool = False) -> AnswerResult:
    used = sorted({int(m.group(1)) for m in SOURCE_REF.finditer(text) if 1 <= int(m.group(1)) <= len(hits)})
    timings = {**timings, "total_s": time.perf_counter() - start}
    return AnswerResult(text.strip(), [_source(n, hits[n - 1]) for n in used], hits, False, timings,
                        not_found=not_found)
