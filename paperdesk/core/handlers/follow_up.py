"""A question about one citation of the open answer or report ("what does [5] say?"), kept with that draft.

The answer is written from the cited passage and its neighbours in the paper
(handlers/cited.py) and added below the draft as its next revision, under the
question: the draft the question refers to stays whole (undo shows it as it
was), and [5] keeps meaning the same source. The writer numbers its passages
[1], [2], ...; they are renumbered as the draft numbers them, and a
neighbour the draft did not cite yet becomes a new source after its last.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any, Callable

from paperdesk.core.agents import answer as answers
from paperdesk.core.commands.parse import Command
from paperdesk.core.errors import PaperdeskError
from paperdesk.core.commands.views import Outcome

if TYPE_CHECKING:
    from paperdesk.core.desk.desk import Desk
    from paperdesk.core.library.library import Hit

ALONE_WORDS = 80  # a cited passage this long is answered from alone; a shorter one with its neighbours
SAYS = "The model gave no answer that cites the passage; in its own words, it says:"
_REF = re.compile(r"\[(\d{1,3})\]")


def applies(desk: "Desk", routed: dict[str, Any]) -> bool:
    """The routed question is about a citation of the answer or report open now."""
    draft = desk.session.draft
    return (routed.get("citation") is not None and draft is not None and draft.kind in ("answer", "report")
            and draft.draft_id is not None and desk.drafts.current_draft(draft.draft_id) is not None)


def answer_citation(desk: "Desk", command: Command, routed: dict[str, Any]) -> Outcome:
    from paperdesk.core.handlers.cited import cited_passages

    draft = desk.session.draft
    assert draft is not None and draft.draft_id is not None
    current = desk.drafts.current_draft(draft.draft_id)
    assert current is not None
    n = int(routed["citation"])
    hits = cited_passages(desk.library, routed)
    if hits and len(desk.store.chunks_by_ids([hits[0].chunk_id])[hits[0].chunk_id].text.split()) >= ALONE_WORDS:
        hits = hits[:1]  # the passage asked about, alone: whatever the writer cites or quotes is that passage
    if not hits:
        raise PaperdeskError(f"the passage [{n}] cites is no longer in the library; the {draft.kind} is unchanged")
    numbers, sources = renumbered_sources(current.sources, hits, n)
    asked = command.text.strip()
    # the question as the user asked it, as a heading: the answer below reads as its own part, not as prose
    # glued to the previous answer
    heading = f"### {asked}{'' if asked.endswith(('?', '.', '!')) else '?'}\n\n"
    stream = desk.token_stream(draft.kind, draft.query)
    stream(heading)
    renumber = Renumber(numbers, stream)
    question = f"{writer_question(command.text)} (in answer to: {draft.query})" if draft.query else \
        writer_question(command.text)
    # no dialogue: its "[5]" is the writer's [1]; not distinct: the draft's numbers are fixed, so every
    # passage keeps its [n]
    result = answers.write(desk.library, desk.backend, question, hits, "answer",
                           on_token=renumber.feed, cancel=desk.cancel_token,
                           max_tokens=desk.settings["answer.max_tokens"], note=desk.progress,
                           seed=desk.settings["answer.seed"], distinct=False)
    renumber.close()
    answered = result.text
    if not result.cancelled and 1 not in {c["n"] for c in result.citations}:  # it did not say what [n] says
        answered = passage_says(desk, hits[0])
        stream(f"\n\n{renumber_text(answered, numbers)}")
    added = renumber_text(answered, numbers)
    used = {int(m.group(1)) for m in _REF.finditer(added)}
    for source in sources:
        if source.get("n") in used:
            source["cited"] = True
    text = f"{current.text.rstrip()}\n\n{heading}{added}"
    status = "interrupted" if result.cancelled else "draft"
    revision = desk.drafts.add_draft_revision(draft.draft_id, text, sources, status, command.text)
    desk.persist_session()
    cites = ", ".join(f"[{k}]" for k in sorted(used)) or "nothing"
    note = (f"revision {revision.revision}: the answer about [{n}] is added below the {draft.kind} "
            f"(cites {cites}); undo shows the {draft.kind} as it was")
    if result.cancelled:
        return Outcome(command.raw, "cancelled", f"interrupted; the partial text is kept as {note}", desk.draft_view())
    return Outcome(command.raw, "ok", note, desk.draft_view())


def passage_says(desk: "Desk", hit: "Hit") -> str:
    """What the passage says in its own words: its most central sentences, cited [1]; its opening words when
    it has no whole sentence."""
    from paperdesk.core.agents.attribution import extract

    text = desk.store.chunks_by_ids([hit.chunk_id])[hit.chunk_id].text
    encode = desk.library.embedder.encode
    quoted = extract(encode([text])[0], [text], encode, limit=2)
    if not quoted:
        words = text.split()
        quoted = f"“{' '.join(words[:40])}{' …' if len(words) > 40 else ''}” [1]"
    return f"{SAYS} {quoted}"


def writer_question(question: str) -> str:
    """The question as the writer sees it: the cited passage is its [1], whatever the draft calls it."""
    from paperdesk.core.text.citation_refs import CITE_PATTERNS

    for pattern in CITE_PATTERNS:  # how the router found the citation
        asked, count = pattern.subn("passage [1]", question, count=1)
        if count:
            return asked
    return f"{question.strip()} (passage [1])"


def renumbered_sources(sources: list[dict[str, Any]], hits: list["Hit"], n: int) -> tuple[dict[int, int],
                                                                                            list[dict[str, Any]]]:
    """(writer's number -> the draft's, the draft's sources plus the neighbours it did not have)."""
    out = [dict(s) for s in sources]
    by_chunk = {s.get("chunk_id"): int(s["n"]) for s in out if s.get("n") is not None}
    last = max((int(s["n"]) for s in out if s.get("n") is not None), default=0)
    numbers: dict[int, int] = {}
    for i, hit in enumerate(hits, start=1):
        if i == 1:
            numbers[i] = n
        elif hit.chunk_id in by_chunk:
            numbers[i] = by_chunk[hit.chunk_id]
        else:
            last += 1
            numbers[i] = last
            out.append({"n": last, "paper_id": hit.paper_id, "title": hit.title, "page": hit.page_start,
                        "chunk_id": hit.chunk_id, "quote": hit.snippet.replace("**", ""), "cited": False})
    return numbers, out


def renumber_text(text: str, numbers: dict[int, int]) -> str:
    return _REF.sub(lambda m: f"[{numbers.get(int(m.group(1)), int(m.group(1)))}]", text)


class Renumber:
    """Streams text with its [i] renumbered; holds back a "[" until its "]" (or a non-digit) arrives."""

    def __init__(self, numbers: dict[int, int], out: Callable[[str], None]) -> None:
        self.numbers, self.out, self.held = numbers, out, ""

    def feed(self, text: str) -> None:
        self.held += text
        cut = self.held.rfind("[")
        if cut >= 0 and re.fullmatch(r"\[\d{0,3}", self.held[cut:]):
            ready, self.held = self.held[:cut], self.held[cut:]
        else:
            ready, self.held = self.held, ""
        if ready:
            self.out(renumber_text(ready, self.numbers))

    def close(self) -> None:
        if self.held:
            self.out(renumber_text(self.held, self.numbers))
            self.held = ""
