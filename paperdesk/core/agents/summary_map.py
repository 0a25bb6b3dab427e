"""The map step of a summary: one passage of the paper becomes short cited notes.

The prompt (prompts/summarize_map.txt) is an instruction, one worked example
on an invented topic, and the passage. A model with a chat template gets the
example as a turn of its own (the user shows an excerpt, the assistant answers
with notes) and the passage as the next turn: given it all in one message, a
small chat model often begins its answer by copying the example's notes. A
note that still copies a prompt is dropped (`map_notes`).
"""

from __future__ import annotations

import re

from paperdesk.core.agents import quality
from paperdesk.core.agents.citations import CITATION, check_citations
from paperdesk.core.db.store import Chunk
from paperdesk.core.llm.backend import Backend, GenerationRequest
from paperdesk.core.llm.repeats import drop_repeats
from paperdesk.core.prompts import render, template

_EXCERPT = "\nExcerpt:\n"
_POINTS = "\nKey points:\n"
_ENDED = re.compile(r"[.!?]\s*(?:\[(?:p\.?|pp\.)\s*[\d\s,–-]+\]\.?)?\s*$")  # "... done." or "... done [p. 3]."


def map_request(backend: Backend, excerpt: str, **options: object) -> GenerationRequest:
    """The request for notes on `excerpt`: chat turns with the worked example as a turn of its own for a
    model with a chat template, the whole prompt as one completion otherwise."""
    if not backend.chat_template:
        return GenerationRequest(prompt=render("summarize_map", excerpt=excerpt), **options)  # type: ignore[arg-type]
    instruction, example, _slot = template("summarize_map").split(_EXCERPT)
    shown, reply = example.split(_POINTS)
    messages = [{"role": "system", "content": instruction.strip()},
                {"role": "user", "content": f"Excerpt:\n{shown.strip()}"},
                {"role": "assistant", "content": reply.strip()},
                {"role": "user", "content": f"Excerpt:\n{excerpt.strip()}"}]
    return GenerationRequest(messages=messages, **options)  # type: ignore[arg-type]


def map_notes(text: str, chunk: Chunk, page_count: int, complete: bool = True) -> tuple[list[str], int]:
    """The notes (cited bullet lines) the map step wrote on `chunk`, and how many lines it dropped as echoes
    of the prompt: a copied note would have the sections written about the example instead of the paper.
    When the reply was cut off by its token limit (not `complete`), its last line is a note cut off
    mid-sentence, and is left out unless it ends a sentence."""
    notes: list[str] = []
    echoed = 0
    pages = set(range(chunk.page_start, chunk.page_end + 1))
    lines = drop_repeats("-" + text).splitlines()
    if not complete and lines and not _ENDED.search(lines[-1]):
        lines.pop()
    for line in lines:
        line = line.strip().lstrip("-• ").strip()
        if len(CITATION.sub("", line).strip()) <= 12:
            continue
        if quality.leaks(line):
            echoed += 1
            continue
        notes.append(check_citations(f"- {line}", page_count, pages).text)
    return notes, echoed
