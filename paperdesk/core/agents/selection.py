"""Select before phrasing: the writer first picks which numbered evidence sentences state the answer.

A small model asked to answer from five passages writes a fluent sentence with a figure from the wrong row,
the wrong study or the wrong paper, or invents one when nothing fits. Picking is an easier task than
writing: the evidence windows are cut into numbered sentences, and the writer replies, under a JSON grammar
where the backend has one, with the numbers of those that state the answer, or none. Only the picked
sentences are then phrased (and every fact of the phrasing must be in them); nothing picked means the papers
do not hold the answer, and the answer says so.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Sequence

from paperdesk.core.agents.answer_prompt import short_title
from paperdesk.core.agents.evidence import evidence_sentences
from paperdesk.core.cancel import CancelToken
from paperdesk.core.llm.backend import Backend, GenerationRequest, generate
from paperdesk.core.prompts import render, template

if TYPE_CHECKING:
    from paperdesk.core.library.library import Hit

MAX_CANDIDATES = 30  # sentences offered (the reading budget, not this cap, bounds them in practice)
READ_WORDS = 500  # words of evidence the writer reads to pick from (evidence.reading)
MAX_PICK = 3
SENTENCE_WORDS = 60  # a longer sentence (a table row run together) is cut to its first words
_GAP = re.compile(r"\s*…\s*")


@dataclass(frozen=True)
class Candidate:
    hit: int  # index of the passage (0-based) the sentence is from
    text: str


@dataclass
class Selection:
    candidates: list[Candidate]
    picked: list[int]  # indexes into candidates, most direct first
    raw: str = ""  # what the writer replied
    asked: GenerationRequest | None = None  # the selection request (the phrasing continues its conversation)
    cancelled: bool = False
    understood: bool = True  # the reply was a list of numbers (a backend without a grammar may reply in prose)

    @property
    def sentences(self) -> list[Candidate]:
        return [self.candidates[i] for i in self.picked]


def candidates(passages: Sequence[str], limit: int = MAX_CANDIDATES) -> list[Candidate]:
    """The sentences of each evidence window, passages best first, each passage's in its own order; when there
    are more than `limit`, every passage keeps its first sentences (a round over the passages)."""
    per_hit: list[list[str]] = []
    for passage in passages:
        parts = [s for piece in _GAP.split(passage) for s in evidence_sentences(piece)]
        per_hit.append([" ".join(s.split()[:SENTENCE_WORDS]) for s in parts if len(s.split()) >= 3])
    chosen: set[tuple[int, int]] = set()
    depth = 0
    while len(chosen) < limit and any(depth < len(s) for s in per_hit):
        for i, sentences in enumerate(per_hit):
            if depth < len(sentences) and len(chosen) < limit:
                chosen.add((i, depth))
        depth += 1
    return [Candidate(i, per_hit[i][j]) for i, j in sorted(chosen)]


def with_neighbours(found: Sequence[Candidate], i: int) -> str:
    """Candidate i with the candidates just before and after it from the same passage: what a picked sentence
    says often leans on its neighbour ("It is used in ..." after the sentence naming it)."""
    near = [j for j in (i - 1, i, i + 1) if 0 <= j < len(found) and found[j].hit == found[i].hit]
    return " ".join(found[j].text for j in near)


def listing(hits: Sequence["Hit"], found: Sequence[Candidate]) -> str:
    """The candidates numbered [1], [2] ..., under a "(Paper, p. N)" line for each passage they come from."""
    lines: list[str] = []
    last = -1
    for n, c in enumerate(found, start=1):
        if c.hit != last:
            lines.append(f"({short_title(hits[c.hit].title)}, p. {hits[c.hit].page_start})")
            last = c.hit
        lines.append(f"[{n}] {c.text}")
    return "\n".join(lines)


def schema(count: int) -> dict[str, Any]:
    numbers = {"type": "integer", "enum": list(range(1, count + 1))}
    return {"type": "object", "properties": {"answer": {"type": "array", "items": numbers, "maxItems": MAX_PICK}},
            "required": ["answer"]}


def _turns() -> list[list[str]]:
    """The worked examples: each a list of alternating user / assistant texts."""
    return [[part.strip() for part in example.split("\n---\n")] for example in template("select_example").split("\n===\n")]


def request(backend: Backend, hits: Sequence["Hit"], found: Sequence[Candidate], question: str
            ) -> GenerationRequest:
    """The selection request: the system message and worked turns as chat, or a completion prompt."""
    shown = render("select_chat", sentences=listing(hits, found), question=question.strip()).strip()
    grammar = schema(len(found)) if backend.capabilities.json_schema else None
    options: dict[str, Any] = {"max_tokens": 24, "temperature": 0.0, "seed": 1, "json_schema": grammar,
                               "stop": ["\n\n"]}
    if backend.chat_template:
        messages = [{"role": "system", "content": template("select_system").strip()}]
        for turns in _turns():
            messages += [{"role": "user" if i % 2 == 0 else "assistant", "content": text}
                         for i, text in enumerate(turns)]
        messages.append({"role": "user", "content": shown})
        return GenerationRequest(messages=messages, **options)
    blocks = [template("select_system").strip()]
    for turns in _turns():
        blocks.append("\n".join(text if i % 2 == 0 else f"Reply: {text}" for i, text in enumerate(turns)))
    return GenerationRequest(prompt="\n\n".join([*blocks, f"{shown}\nReply:"]), **options)


def phrase_request(asked: GenerationRequest, reply: str, picked: Sequence[int], max_tokens: int,
                   stop: list[str], **options: Any) -> GenerationRequest:
    """The phrasing request: the selection's conversation continued, so the model's evaluated prefix (the
    examples and the sentences) is reused and only the new turn is read."""
    numbers = [f"[{i + 1}]" for i in picked]
    named = ("sentence " + numbers[0]) if len(numbers) == 1 else \
        ("sentences " + ", ".join(numbers[:-1]) + " and " + numbers[-1])
    turn = render("select_phrase", sentences=named).strip()
    if asked.messages is not None:
        messages = [*asked.messages, {"role": "assistant", "content": reply.strip()}, {"role": "user", "content": turn}]
        return GenerationRequest(messages=messages, max_tokens=max_tokens, stop=stop, **options)
    prompt = f"{asked.prompt} {reply.strip()}\n{turn}\nReply:"
    return GenerationRequest(prompt=prompt, max_tokens=max_tokens, stop=stop, **options)


def parse(text: str, count: int) -> list[int] | None:
    """The picked sentence numbers (0-based, in order, unique, in range) from the writer's reply; None when the
    reply is not a list of numbers at all."""
    try:
        value = json.loads(text.strip())
        numbers = value.get("answer") if isinstance(value, dict) else value
    except (json.JSONDecodeError, AttributeError):
        inner = re.search(r"\[([\d\s,]*)\]", text)
        numbers = re.findall(r"\d+", inner.group(1)) if inner else None
    if not isinstance(numbers, list):
        return None
    picked: list[int] = []
    for number in numbers:
        try:
            n = int(number)
        except (TypeError, ValueError):
            continue
        if 1 <= n <= count and n - 1 not in picked:
            picked.append(n - 1)
    return picked[:MAX_PICK]


def select(backend: Backend, hits: Sequence["Hit"], passages: Sequence[str], question: str,
           cancel: CancelToken | None = None) -> Selection:
    """Ask the writer which candidate sentences state the answer; an empty pick means none does."""
    found = candidates(passages)
    if not found:
        return Selection([], [])
    asked = request(backend, hits, found, question)
    result = generate(backend, asked, cancel=cancel)
    picked = None if result.cancelled else parse(result.text, len(found))
    return Selection(found, picked or [], result.text, asked, result.cancelled, picked is not None or result.cancelled)
