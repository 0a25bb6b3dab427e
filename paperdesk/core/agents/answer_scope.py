"""Whether an answer is about what was asked, judged from the passages it cites.

A small writer asked for a figure the papers do not hold still finds a figure, and frames it in the
question's words: asked how many hours an approach saves per piece, it writes "3 hours of expert time per
written piece [3]" from a passage about something else. Its number is in the passage, so the fact checks
pass; what gives it away is that the words it took from the question are not. A cited sentence whose words
shared with the question are mostly absent from the pages it cites ties the papers' facts to a question
they do not answer, and the answer is shown as not found instead (with the closest passages).

Likewise a question that names a paper ("in the PaperMage paper") is about that paper: an answer that cites
only other papers' passages answers something else, however well its words fit, and is not found either.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Sequence

from paperdesk.core.agents.attribution import SOURCE_REF, split_sentences
from paperdesk.core.agents.evidence import named_papers, stems

if TYPE_CHECKING:
    from paperdesk.core.library.library import Hit, Library

HELD_MIN = 0.5  # share of a sentence's question words its cited pages must hold


def held_share(sentence: str, question: str, evidence: str, names: str = "") -> float | None:
    """The share of the question's words in `sentence` that `evidence` holds; None when the sentence takes no
    word from the question. Words of `names` (the cited papers' titles) do not count: a passage rarely
    names its own paper."""
    echoed = (stems(sentence) & stems(question)) - stems(names)
    if not echoed:
        return None
    held = stems(evidence)
    return sum(1 for w in echoed if w in held) / len(echoed)


def off_question(library: "Library", text: str, question: str, hits: Sequence["Hit"]) -> bool:
    """Some cited sentence of `text` frames its facts in question words its cited pages mostly lack."""
    pages: dict[tuple[str, int], str] = {}

    def page(paper_id: str, number: int) -> str:
        if (paper_id, number) not in pages:
            pages[paper_id, number] = library.store.page_text(paper_id, number) or ""
        return pages[paper_id, number]

    for sentence in split_sentences(text):
        cited = [hits[n - 1] for n in _refs(sentence) if 1 <= n <= len(hits)]
        if not cited:
            continue
        evidence = " ".join(page(h.paper_id, n) for h in cited for n in range(h.page_start, h.page_end + 1))
        evidence += " " + " ".join(h.snippet for h in cited)
        share = held_share(sentence, question, evidence, " ".join(h.title for h in cited))
        if share is not None and share < HELD_MIN:
            return True
    return False


def cites_unnamed_only(text: str, question: str, hits: Sequence["Hit"]) -> bool:
    """The question names papers among `hits`, and `text` cites passages, none of them from those papers."""
    named = named_papers(question, hits, described=True)
    cited = {hits[n - 1].paper_id for n in _refs(text) if 1 <= n <= len(hits)}
    return bool(named and cited) and not cited & named


def _refs(sentence: str) -> list[int]:
    return [int(m.group(1)) for m in SOURCE_REF.finditer(sentence)]

