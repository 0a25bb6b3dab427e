"""Cited answers and reports from the library: hybrid search, then text citing [n] sources.

Each [n] maps to (paper, page, snippet) of the n-th source passage. Numbers
the sources do not have are removed; if nothing relevant is found the answer
says so instead of inventing one. The same engine writes sem-search answers,
their improved revisions, and (for now, one retrieval round) research reports.
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Any, Callable


from paperdesk.core.agents.attribution import (
    SOURCE_REF,
    drop_copied,
    extract,
    ground,
    scaffolding_check,
    split_sentences,
    strip_echo,
    supported_share,
    trim_loops,
    usable,
)
from paperdesk.core.agents.answer_scope import cites_unnamed_only, off_question
from paperdesk.core.agents.named_citation import cite_named
from paperdesk.core.agents.passage_answer import answering_sentence, cut_quote
from paperdesk.core.agents.restates import restates
from paperdesk.core.agents.second_look import reads_new
from paperdesk.core.agents.fact_gate import Dropped, FactGate
from paperdesk.core.agents import answer_check, answer_prompt, evidence, quality, sentence_judge
from paperdesk.core.agents.answer_result import (NONE_STATED, NOT_FOUND, NOTHING_FOUND, QUOTED, STOPS,
                                                 SUPPORTED_MIN, AnswerResult, not_found_text, source as _source)
from paperdesk.core.agents.answer_selected import write_selected
from paperdesk.core.cancel import CancelToken
from paperdesk.core.library.library import Hit, Library
from paperdesk.core.llm.backend import Backend, GenerationRequest, generate
from paperdesk.core.llm.repeats import drop_repeats
from paperdesk.core.llm.requests import make_request
from paperdesk.core.memory.recall import recall
from paperdesk.core.progress import Progress, ProgressCallback
from paperdesk.core.search.reader import sentence_encoder
from paperdesk.core.prompts import render, template as template_text

if TYPE_CHECKING:
    from paperdesk.core.config import Settings
    from paperdesk.core.memory.graph import MemoryGraph

MIN_VECTOR = 0.25  # below this cosine, with no keyword match, a passage is not about the question
SOURCE_WORDS = 60  # words of each passage in the prompt: a small model loses the task in long prompts
# No text the passages support could be written: the answer is not found, and the closest sentences show why.
FALLBACK_NOTE = "Not found in your papers (no answer the passages support could be written); the sentences " \
    "closest to the question are:"
CANDIDATES = 15  # passages search proposes before they are re-ranked for the question
EVIDENCE_WORDS = 70  # words of each evidence window (its best sentence and neighbours) in the prompt
LEAD = "The passages show that"
RETRY = {"temperature": 0.7, "seed": 1001, "repeat_penalty": 1.3}  # the second attempt's sampling
# Streamed before "not found" when the sentences streamed so far do not stand as the answer: on a terminal
# they stay on screen, and must not read as one.
WITHDRAWN = "(The answer above is withdrawn: its passages do not answer what was asked.)"
RESTATED = "(The answer above is withdrawn: it only says the question back.)"


def relevant(hits: list[Hit]) -> list[Hit]:
    """Hits about the question: close in meaning, or keyword-only hits the vector side never scored."""
    return [h for h in hits if (h.vector_score or 0.0) >= MIN_VECTOR or (h.vector_score is None and h.keyword_score)]


def retrieve(library: Library, question: str, k: int = 5, papers: list[str] | None = None,
             memory: "MemoryGraph | None" = None, recall_k: int = 2, spread: bool = False) -> list[Hit]:
    """The library passages relevant to a question, best first (empty when nothing is); `papers` narrows it.

    With `memory`, up to `recall_k` more passages that earlier discussions tied to the question follow
    (each is its paper's own page, so it is cited as that page; `Hit.via` says which memory led there).
    `spread`: every paper that fits gives a passage (research; see evidence.select).
    """
    wide = max(3 * k, CANDIDATES)  # candidates to re-rank: the best passage for an answer is often not search's first
    found = relevant(library.search(question, k=wide, papers=papers) if papers else library.search(question, k=wide))
    hits, _ = evidence.select(library, question, found + evidence.role_candidates(library, question, found), k,
                              spread=spread)
    if memory is None or recall_k <= 0:
        return hits
    recalled = recall(library, memory, question, {h.chunk_id for h in hits}, recall_k)
    return hits + [h for h in recalled if not papers or h.paper_id in papers]


def write(
    library: Library,
    backend: Backend,
    question: str,
    hits: list[Hit],
    template: str = "answer",
    on_token: Callable[[str], None] | None = None,
    cancel: CancelToken | None = None,
    max_tokens: int = 160,
    dialogue: str = "",
    note: ProgressCallback | None = None,
    select: bool = False,
    reading: int = 0,
    second_look: int = 0,
    distinct: bool = True,
    seed: int = 1,
    judge: int = 0,
    judge_seconds: float | None = None,
    check: bool = False,
    **values: str,
) -> AnswerResult:
    """Generate text from `hits` with prompt `template`, then ground it: every [n] checked, sentences attributed.

    Completion models get the answer's first words written for them (LEAD): small base
    models continue a started sentence far more reliably than they fill an empty slot.
    When the model's text is unusable, the answer quotes the passages instead and says so.
    A second attempt is announced through `note` (the status line); `on_token` gets only the answer's text.
    An answer (template "answer") with `select` picks its evidence sentences first (answer_selected.py), on
    a backend that can be held to a list of numbers (a JSON grammar).
    An answer that would say "not found" from the passages' best sentences and neighbours reads, with
    `second_look` > 0, that many words of the passages' best-fitting sentences wherever they stand
    (evidence.reading) and is written once more; it stays "not found" unless that answer holds up.
    With `distinct`, no sentence is shown twice and a passage with nothing new is left out, so the answer's
    [n] number its `hits` (the result's) as read; without it, every passage keeps its place and number.
    `seed` is the first draw's sampling seed (the retry has its own).
    With `judge` > 0 (a backend that can judge), the writer is first asked which of that many best-scoring
    candidate sentences state the answer, for at most `judge_seconds`: the passage of its likeliest is read
    first and each window shows its passage's (sentence_judge.py).
    With `check` (a backend that can judge), an answer that passed every other gate is put back to the writer:
    do the windows it cites state it? An answer the writer doubts is withdrawn for "not found"
    (answer_check.py).
    """
    if template == "answer" and select and hits and backend.capabilities.json_schema:
        picked = write_selected(library, backend, question, hits, on_token, cancel, max_tokens, note, dialogue)
        if picked is not None:  # None: the backend's reply was not a list of numbers; answer directly below
            return picked
    start = time.perf_counter()
    offered = list(hits)  # every passage found, for a second, wider look
    if not hits:
        if on_token is not None:
            on_token(NOTHING_FOUND)
        return AnswerResult(NOTHING_FOUND, [], [], False, {"total_s": 0.0})
    chunks = library.store.chunks_by_ids([h.chunk_id for h in hits])
    texts = [chunks[h.chunk_id].text for h in hits]
    reader = sentence_encoder(library.settings, library.embedder)  # picks the sentences the writer reads
    if template == "answer" and reading > 0:  # one budget over all passages, where the fitting sentences are
        passages = evidence.reading(library, question, hits, texts, reading, encoder=reader)
    else:
        judge = judge if template == "answer" and backend.capabilities.judges else 0
        if judge and note is not None:
            note(Progress("answer: asking the writer which sentences state it", 0, judge, "sentences"))
        hits, texts, passages = first_windows(library, backend, question, hits, texts, reader, distinct, judge,
                                              judge_seconds, cancel)
    kept = [i for i, p in enumerate(passages) if p.strip()] or [0]  # a passage with nothing (new) to read is left out
    hits, texts, passages = [hits[i] for i in kept], [texts[i] for i in kept], [passages[i] for i in kept]
    chat = bool(backend.chat_template)

    def prompt_for(n_hits: int) -> tuple[str, list[dict[str, str]] | None, str, str]:
        """(completion prompt, chat messages or None, the worked examples' text, the lead) over the first n_hits."""
        if template == "answer":  # answer-first prompts per model family (answer_prompt.py)
            prompt, messages, examples = answer_prompt.build(chat, hits[:n_hits], passages[:n_hits], question,
                                                             dialogue)
            return prompt, messages, examples, ""
        sources = "\n".join(f"Source {n} ({_short(h.title)}, page {h.page_start}): {passages[n - 1]}"
                            for n, h in enumerate(hits[:n_hits], start=1))
        lead = "" if chat else LEAD
        prompt = render(template, sources=sources, question=question.strip(), **values).rstrip()
        if dialogue.strip():  # the optional "User dialogue" block: the user's words lead the task
            prompt = f"{dialogue.strip()}\n\n{prompt}"
        return (f"{prompt} {lead}" if lead else prompt), None, template_text(template), lead

    def measured(prompt: str, messages: list[dict[str, str]] | None) -> str:
        return "\n".join(m["content"] for m in messages) if messages else prompt

    prompt, messages, examples, lead = prompt_for(len(hits))
    room = getattr(backend, "prompt_room", None)  # a small llm.n_ctx: drop the weakest passages until it fits
    while room is not None and len(hits) > 1 and room(measured(prompt, messages), max_tokens) < 0:
        hits, passages, texts = hits[:-1], passages[:-1], texts[:-1]
        prompt, messages, examples, lead = prompt_for(len(hits))
    full_texts = texts
    # an answer's figures and names must be in what the writer read (its passages' windows, the papers' short
    # titles, the question), not merely somewhere in their chunks: a figure it could not see is one it made up.
    # A label's page number is not a fact to copy ("(Paper, p. 8)" is no source for "eight").
    read = ([f"({answer_prompt.short_title(h.title)}) {p}" for h, p in zip(hits, passages)]
            if template == "answer" else full_texts)
    reject = scaffolding_check(examples)
    cite_labels = answer_prompt.label_citer(hits)  # "(PaperMage, p. 4)" -> "[1]"
    failures: list[str] = []
    dropped: list[Dropped] = []
    leaks = recited = 0
    for options in ({"temperature": 0.2, "seed": seed, "repeat_penalty": 1.15}, RETRY):
        if failures and note is not None:  # what happened goes to the status line, never into the answer
            note(Progress(f"answer: {failures[-1]}; writing it again", 2, 2, "attempts"))
        request = (GenerationRequest(messages=messages, max_tokens=max_tokens, stop=STOPS,
                                     fixed_messages=len(messages) - 1, **options) if messages
                   else make_request(backend, prompt, max_tokens=max_tokens, stop=STOPS, **options))
        # Only sentences whose facts the passages state reach the reader, as they stream and as stored.
        gate = FactGate(read, question, on_token, reject, rewrite=cite_labels)
        result = generate(backend, request, on_token=_after_lead(lead, gate.feed) if lead else gate.feed,
                          cancel=cancel)
        shown = gate.close(cut=result.finish_reason == "length")
        dropped += gate.dropped
        recited += gate.recited
        # The quality gate sees the raw text: trim_loops below would hide the loop it must catch.
        # An answer may be a bare figure or name from its passage ("9,280 expert-authored summaries [1].",
        # "pdfplumber [1]."): grounding checks it like any other sentence.
        least = 1 if template == "answer" and (quality.numbers(shown) or SOURCE_REF.search(shown)) else 4
        # A phrase the passages themselves repeat is the paper's wording, not a loop.
        verdict = quality.check(strip_echo(drop_repeats(result.text)), least, full_texts)
        leaks += verdict.leaks_removed
        generated = drop_copied(trim_loops(quality.check(strip_echo(drop_repeats(shown)), least, full_texts).text,
                                           sources=full_texts), examples)
        if result.cancelled or (verdict.ok and usable(generated, least)):
            break
        failures.append("; ".join(verdict.reasons) or
                        ("every sentence stated facts the passages do not" if gate.dropped else "no usable text"))
    encode = library.embedder.encode
    matrix = encode(passages)  # the evidence windows the model read, one unit vector each
    fallback = not result.cancelled and len(failures) == 2
    flagged: list[str] = []
    not_found = False
    support: float | None = None  # the answer check's margin for the text that stands (answer_check.py)
    withdrawn: str | None = None  # the draft withdrawn for "not found": the note shown before its ending
    if fallback:
        quoted = extract(library.embedder.encode_query(question), passages, encode)
        text = not_found_text(quoted, FALLBACK_NOTE)
        removed: list[int] = []
    else:
        grounded = ground(generated.strip(), matrix, encode, passages, full_texts)
        text, removed, flagged = grounded.text, grounded.removed, grounded.numbers_flagged
        if template == "answer":  # the named paper's copy of a sentence read from another paper's
            text, hits = cite_named(library, text, question, hits)
        failed = not result.cancelled and template == "answer" and (
            supported_share(text) < SUPPORTED_MIN or off_question(library, text, question, hits) or
            cites_unnamed_only(text, question, hits))
        if check and not failed and not result.cancelled and template == "answer":
            support = _check_margin(backend, question, text, passages, cancel, note)
            failed = not answer_check.stands_at(support)
        if failed:
            # Too little of it comes from the papers to stand as an answer, it frames their facts in the
            # question's words its passages lack, it answers a question about one paper from others, or the
            # writer, reading its cited passages again, doubts they state it: say so, with the closest passages.
            quoted = extract(library.embedder.encode_query(question), passages, encode)
            text, not_found, support = not_found_text(quoted), True, None
            withdrawn = WITHDRAWN if shown.strip() else ""  # streamed below, once the ending is known
    if template == "answer" and not result.cancelled and (fallback or not_found or restates_all(text, question)):
        # before "not found": a passage's own sentence that holds the question's words answers it, quoted
        shown_before, support = text, None  # a quote or "not found" is not the text the writer's check read
        restated = not (fallback or not_found)  # the streamed answer stands so far: it only said the question back
        quoted_text = quoted_answer(question, hits, full_texts, encode)
        if quoted_text is not None:
            text, fallback, not_found = quoted_text, False, False
        elif restated:  # nothing was answered
            quoted = extract(library.embedder.encode_query(question), passages, encode)
            text, not_found = not_found_text(quoted), True
        if on_token is not None and text != shown_before and withdrawn is None and (quoted_text is not None or
                                                                                   restated):
            # a streamed restatement is withdrawn first; a withdrawn draft's ending is streamed below
            on_token(f"\n\n{RESTATED}\n\n{text}" if restated and shown.strip() else f"\n\n{text}")
    if withdrawn is not None and on_token is not None:  # the withdrawn draft's ending: a quote or "not found"
        on_token(f"\n\n{withdrawn}\n\n{text}" if withdrawn else f"\n\n{text}")
    elif fallback and on_token is not None:  # the quoted passages stand: shown as every other ending is
        on_token(f"\n\n{text}" if shown.strip() else text)
    used = sorted({int(m.group(1)) for m in SOURCE_REF.finditer(text) if 1 <= int(m.group(1)) <= len(hits)})
    citations = [_source(n, hits[n - 1]) for n in used]
    timings = {"first_token_s": result.first_token_s or 0.0, "total_s": time.perf_counter() - start}
    first = AnswerResult(text.strip(), citations, hits, result.cancelled, timings, removed, fallback,
                         bool(failures), leaks, flagged, failures, [d.sentence for d in dropped], not_found, recited,
                         list(passages), support)
    if template != "answer" or second_look <= 0 or reading > 0 or result.cancelled or not (fallback or not_found):
        return first
    return _second_look(library, backend, question, offered, first, " ".join(passages), second_look, on_token,
                        cancel, max_tokens, dialogue, note, start, seed, check)


def _check_margin(backend: Backend, question: str, text: str, windows: list[str], cancel: CancelToken | None,
                  note: ProgressCallback | None) -> float | None:
    """The writer's margin that the answer's cited windows state it (answer_check.py); None: not to be had."""
    if not backend.capabilities.judges:
        return None
    if note is not None:
        note(Progress("answer: checking that its passages state it", 1, 1, "checks"))
    return answer_check.margin(backend, question, text, windows, cancel)


def first_windows(library: Library, backend: Backend, question: str, hits: list[Hit], texts: list[str],
                  reader: "evidence.SentenceEncoder", distinct: bool = True, judge: int = 0,
                  judge_seconds: float | None = None, cancel: CancelToken | None = None,
                  ) -> tuple[list[Hit], list[str], list[str]]:
    """The passages (hits and chunk texts, reordered when the writer judged) and their evidence windows, as an
    answer's first reading has them: each passage's best sentence and neighbours (evidence.cut); with `judge`,
    the passages in the order of the writer's judging and each window with its pick (sentence_judge.py)."""
    scored = evidence.scored_passages(library, question, texts, reader)
    if judge > 0:
        scored, order = sentence_judge.judged(backend, question, scored, judge, cancel, judge_seconds)
        hits, texts, scored = [hits[i] for i in order], [texts[i] for i in order], [scored[i] for i in order]
    return hits, texts, evidence.cut(scored, EVIDENCE_WORDS, distinct=distinct)


def answer_options(settings: "Settings") -> dict[str, Any]:
    """The answer.* settings as `answer`'s and `write`'s keywords."""
    return {"select": settings["answer.select"], "reading": settings["answer.reading_words"],
            "second_look": settings["answer.second_look"], "seed": settings["answer.seed"],
            "judge": settings["answer.judge"], "judge_seconds": settings["answer.judge_seconds"],
            "check": settings["answer.check"]}


def _second_look(library: Library, backend: Backend, question: str, hits: list[Hit], first: AnswerResult,
                 first_read: str, words: int, on_token: Callable[[str], None] | None, cancel: CancelToken | None,
                 max_tokens: int, dialogue: str, note: ProgressCallback | None, start: float,
                 seed: int, check: bool = False) -> AnswerResult:
    """The answer written again from `words` words of the passages' best-fitting sentences wherever they
    stand, when the first, from each passage's best sentence and neighbours (`first_read`), was "not found":
    the sentence that states it is often a passage's second or third best, away from the first. `first`
    stands unless the wider answer holds up (it passes the same gates) and rests on a sentence the first
    reading did not hold (second_look.reads_new); a cancelled look keeps `first`, marked cancelled."""
    if note is not None:
        note(Progress("answer: not in the passages' best sentences; reading more of them", 2, 2, "attempts"))
    wider = write(library, backend, question, hits, on_token=None, cancel=cancel, max_tokens=max_tokens,
                  dialogue=dialogue, reading=words, seed=seed, check=check)
    if wider.cancelled:
        first.cancelled = True
        return first
    cited = library.store.chunks_by_ids([c["chunk_id"] for c in wider.citations])
    if (wider.not_found or wider.fallback or wider.text in (NOTHING_FOUND, NONE_STATED) or
            not reads_new(wider.text, [cited[c["chunk_id"]].text for c in wider.citations if c["chunk_id"] in cited],
                          first_read)):
        first.timings["total_s"] = time.perf_counter() - start
        return first
    if on_token is not None:
        on_token(f"\n\n{wider.text}")
    wider.read = first.read  # what was read first, as for any answer
    wider.timings["first_token_s"] = first.timings.get("first_token_s", 0.0)
    wider.timings["total_s"] = time.perf_counter() - start
    wider.regenerated = True
    return wider


def quoted_answer(question: str, hits: list[Hit], texts: list[str], encode: Callable) -> str | None:  # type: ignore[type-arg]
    """The answer that quotes the passages' own sentence holding most of the question's words and the kind of
    fact asked for (passage_answer.answering_sentence), cited; None when no sentence does."""
    named = evidence.named_papers(question, hits, described=True)  # a question about one paper: from it
    own = [(i, t, h.page_start, h.page_end) for i, (h, t) in enumerate(zip(hits, texts))
           if not named or h.paper_id in named]
    held = answering_sentence(question, own, encode)
    if held is None:
        return None
    return f'{QUOTED} "{cut_quote(held[1])}" [{own[held[0]][0] + 1}].'


def restates_all(text: str, question: str) -> bool:
    """Every sentence of the answer only says the question back (restates.restates): nothing is answered."""
    sentences = [s for s in split_sentences(text) if s.strip()]
    return bool(sentences) and all(restates(s, question) for s in sentences)


def answer(
    library: Library,
    backend: Backend,
    question: str,
    k: int = 5,
    on_token: Callable[[str], None] | None = None,
    cancel: CancelToken | None = None,
    max_tokens: int = 160,
    memory: "MemoryGraph | None" = None,
    recall_k: int = 2,
    note: ProgressCallback | None = None,
    select: bool = False,
    reading: int = 0,
    second_look: int = 0,
    seed: int = 1,
    judge: int = 0,
    judge_seconds: float | None = None,
    check: bool = False,
) -> AnswerResult:
    """Search (the library, and the pages `memory` recalls), then answer citing the passages found."""
    start = time.perf_counter()
    hits = retrieve(library, question, k, memory=memory, recall_k=recall_k)
    search_s = time.perf_counter() - start
    result = write(library, backend, question, hits, on_token=on_token, cancel=cancel, max_tokens=max_tokens,
                   note=note, select=select, reading=reading, second_look=second_look, seed=seed, judge=judge,
                   judge_seconds=judge_seconds, check=check)
    result.timings["search_s"] = search_s
    result.timings["first_token_s"] = result.timings.get("first_token_s", 0.0) + search_s
    result.timings["total_s"] = time.perf_counter() - start
    return result


def improve(
    library: Library,
    backend: Backend,
    question: str,
    old_text: str,
    feedback: str,
    k: int = 5,
    template: str = "improve_answer",
    on_token: Callable[[str], None] | None = None,
    cancel: CancelToken | None = None,
    max_tokens: int = 160,
    dialogue: str = "",
    note: ProgressCallback | None = None,
) -> AnswerResult:
    """A new answer that follows the reader's request, from passages found for question + request."""
    hits = retrieve(library, f"{question} {feedback}", k) or retrieve(library, question, k)
    return write(library, backend, question, hits, template, on_token, cancel, max_tokens, dialogue, note,
                 old=" ".join(old_text.split()) or "(none)", feedback=feedback.strip())


def _after_lead(lead: str, on_token: Callable[[str], None] | None) -> Callable[[str], None] | None:
    """Stream the lead first, then the tokens, with exactly one space between them."""
    if on_token is None:
        return None
    on_token(lead)
    first = True

    def forward(text: str) -> None:
        nonlocal first
        if first and text.strip():
            text, first = " " + text.lstrip(), False
        on_token(text)

    return forward


def _short(title: str) -> str:
    """The part of a title before its colon: what a reader would call the paper."""
    head = title.split(":", 1)[0].strip()
    return head if 3 <= len(head) <= 60 else " ".join(title.split()[:6])
