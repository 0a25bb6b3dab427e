"""An answer's citation moved to the paper the question names, where that paper states the same sentence.

A library often holds one text twice: a preprint and its published version, a package's vignette and the
journal article it became. Search proposes one copy's passage, and a sentence already read in one passage
is left out of the next (evidence.windows, `distinct`), so the writer may cite the copy the question does
not name; the answer would then be withdrawn as one about another paper (answer_scope.cites_unnamed_only).
Where the named paper has a passage holding the very sentence the cited one rests on, that passage is the
citation: the named paper states it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Sequence

from paperdesk.core.agents.attribution import SOURCE_REF, split_sentences
from paperdesk.core.agents.evidence import named_papers, plain_words
from paperdesk.core.agents.second_look import resting_sentence

if TYPE_CHECKING:
    from paperdesk.core.db.records import Chunk
    from paperdesk.core.library.library import Hit, Library

MIN_WORDS = 8  # a shorter sentence ("Results are shown in Table 2.") is no sign of the same text


def _plain(text: str) -> str:
    return f" {plain_words(text)} "


def cite_named(library: "Library", text: str, question: str,
               hits: Sequence["Hit"]) -> tuple[str, list["Hit"]]:
    """`text` with each citation of another paper's passage, in a sentence that cites no named paper, moved
    to a named paper's passage that holds the sentence it rests on; and `hits` with any such passage added
    at the end (its [n] the new citation). Unchanged when the question names no paper among `hits`."""
    from paperdesk.core.library.library import Hit

    out_hits = list(hits)
    named = named_papers(question, hits, described=True)
    if not named:
        return text, out_hits
    cited_chunks = library.store.chunks_by_ids([h.chunk_id for h in hits])
    own: dict[str, list[tuple["Chunk", str]]] = {}  # a named paper's chunks with their plain words, read once

    def holder(sentence: str) -> int | None:
        """The number of a named paper's passage (added to `out_hits` when new) that holds `sentence`."""
        plain = _plain(sentence)
        for paper_id in sorted(named):
            if paper_id not in own:
                own[paper_id] = [(chunk, _plain(chunk.text)) for chunk in library.store.chunks_of(paper_id)]
            for chunk, words in own[paper_id]:
                if plain in words:
                    for n, hit in enumerate(out_hits, start=1):
                        if hit.chunk_id == chunk.id:
                            return n
                    title = next(h.title for h in hits if h.paper_id == paper_id)
                    out_hits.append(Hit(paper_id, title, chunk.id, chunk.page_start, chunk.page_end, chunk.section,
                                        " ".join(sentence.split()[:40]), 0.0, None, None))
                    return len(out_hits)
        return None

    def moved(sentence: str) -> str:
        refs = [int(m) for m in SOURCE_REF.findall(sentence) if 1 <= int(m) <= len(hits)]
        if not refs or any(hits[n - 1].paper_id in named for n in refs):
            return sentence
        passages = [cited_chunks[hits[n - 1].chunk_id].text for n in refs if hits[n - 1].chunk_id in cited_chunks]
        resting = resting_sentence(sentence, passages)
        if resting is None or len(resting.split()) < MIN_WORDS:
            return sentence
        n = holder(resting)
        if n is None:
            return sentence
        first = SOURCE_REF.search(sentence)
        if first is None:
            return sentence
        rest = SOURCE_REF.sub("", sentence[first.end():])  # every other marker goes: one passage states it
        return f"{sentence[:first.start()]}{first.group(0).replace(first.group(1), str(n))}{rest}"

    for sentence in split_sentences(text):
        new = moved(sentence)
        if new != sentence:
            text = text.replace(sentence, new, 1)
    return text, out_hits
