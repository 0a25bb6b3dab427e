"""The teacher's sentences, each kept only when the passage it cites supports it, credited to its own paper.

The support check is the summaries' (page_grounding.PageGrounder, claims.supports): a
sentence stays when it is close in meaning to a source passage, shares its
words, and every number, name and DOI it states is on that passage or its
page. Sources are grouped by the paper they come from (the discussed paper,
another library paper, a memory fact's paper, an arXiv abstract), one grounder
each, so a sentence supported by another paper's passage is cited as that
paper and page, never as the discussed paper's. The model's [n] only decides
which paper is tried first. Tokens stream through sentence_stream.SentenceGate:
what the reader sees is what is stored. When no sentence survives, the answer
quotes the paper's sentence that holds the question's words (passage_answer.py)
or, when none does, says the paper does not state it and quotes the closest
passage of the paper.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Callable, Sequence

import numpy as np

from paperdesk.core.agents.attribution import SOURCE_REF, extract
from paperdesk.core.agents.citations import CITATION
from paperdesk.core.agents.claims import SENTENCE_COVER
from paperdesk.core.agents.page_grounding import PageGrounder, SectionGrounding
from paperdesk.core.agents.passage_answer import cut_quote
from paperdesk.core.db.store import Chunk, Store

NOT_FOUND = "Not found in the paper; its closest passage says:"
QUOTED = "The paper states:"  # the answer that quotes the paper's own sentence holding the question's words


@dataclass
class _Group:
    key: str  # the paper id, or "arXiv:ID"
    indices: list[int]  # the sources (0-based) whose passages it grounds against
    grounder: PageGrounder


@dataclass
class SourceGrounder:
    """Duck-types PageGrounder.ground_sentence for SentenceGate, over sources from several papers."""

    groups: list[_Group]
    own_paper: str
    pages: list[tuple[int, int]]  # each source's pages
    used: list[int] = field(default_factory=list)  # sources (0-based) the kept sentences cite
    supported: list[str] = field(default_factory=list)  # the kept sentences, citations placed
    dropped: list[tuple[str, str]] = field(default_factory=list)
    reject: Callable[[str], str | None] | None = None  # another reason a sentence must not be shown
    labels: dict[int, str] = field(default_factory=dict)  # source (0-based) -> the label the text cites it by

    @classmethod
    def build(cls, sources: Sequence, own_paper: str, store: Store, vectors: np.ndarray,  # type: ignore[type-arg]
              encode: Callable) -> "SourceGrounder":  # type: ignore[type-arg]
        keys: dict[str, list[int]] = {}
        for i, s in enumerate(sources):
            keys.setdefault(f"arXiv:{s.paper_id}" if s.kind == "arxiv" else s.paper_id, []).append(i)
        groups, pages = [], []
        for i, s in enumerate(sources):
            page = s.page or 1
            pages.append((page, page))
        for key, indices in keys.items():
            chunks = []
            for i in indices:
                s = sources[i]
                first = last = s.page or 1
                if s.chunk_id is not None and s.kind in ("paper", "library"):
                    found = store.chunks_by_ids([s.chunk_id]).get(s.chunk_id)
                    if found is not None:
                        first, last = found.page_start, found.page_end
                pages[i] = (first, last)
                chunks.append(Chunk(s.chunk_id if s.chunk_id is not None else -1 - i, s.paper_id, 0, first, last,
                                    s.section, s.text))
            if key.startswith("arXiv:"):
                abstract = " ".join(sources[indices[0]].text.split())
                page_text: Callable[[int], str] = lambda _p, text=abstract: text
                count = 1
            else:
                paper = store.get_paper(key)
                page_text = (lambda p, pid=key: store.page_text(pid, p) or "")
                count = paper.page_count if paper else 0
            grounder = PageGrounder(chunks, vectors[indices], encode, page_text, count, SENTENCE_COVER)
            groups.append(_Group(key, indices, grounder))
        own_first = sorted(groups, key=lambda g: g.key != own_paper)
        return cls(own_first, own_paper, pages)

    def ground_sentence(self, sentence: str, out: SectionGrounding) -> str | None:
        cited = {int(n) - 1 for n in SOURCE_REF.findall(sentence)}
        bare = SOURCE_REF.sub("", sentence).strip()
        refused = self.reject(bare) if self.reject is not None else None
        if refused:
            out.sentences += 1
            out.unsupported += 1
            self.dropped.append((bare, refused))
            return None
        order = sorted(self.groups, key=lambda g: (not cited & set(g.indices), g.key != self.own_paper))
        scratch = SectionGrounding("")
        for group in order:
            text = bare if group.key == self.own_paper else CITATION.sub("", bare)  # [p. N] means this paper's page
            checked = group.grounder.ground_sentence(text, scratch)
            if checked:
                out.sentences += 1
                out.cited += 1
                checked = self._credit(checked, group)
                self.supported.append(checked)
                return checked
        out.sentences += 1
        out.unsupported += 1
        why = scratch.dropped[-1][1] if scratch.dropped else "no source"
        out.dropped.append((bare, why))
        self.dropped.append((bare, why))
        return None

    def _credit(self, text: str, group: _Group) -> str:
        """The grounder's [p. N] marks as this group's labels; the sources they point at are recorded as used."""

        def label(match: re.Match[str]) -> str:
            first, last = int(match.group(1)), int(match.group(2) or match.group(1))
            on = [i for i in group.indices if self.pages[i][0] <= last and first <= self.pages[i][1]][:1]
            if group.key.startswith("arXiv:"):
                mark = f"[{group.key}]"
            elif group.key == self.own_paper:
                mark = match.group(0)
            else:
                mark = f"[{group.key}, p. {first}]"
            for i in on:
                self.used.append(i)
                self.labels.setdefault(i, mark)
            return mark

        return CITATION.sub(label, text)


def not_found(question_vector: np.ndarray, own: Sequence[tuple[int, str, int, int]], encode: Callable,  # type: ignore[type-arg]
              grounder: SourceGrounder | None = None) -> tuple[str, int | None]:
    """The "not found" answer quoting the paper's passage closest to the question; (text, source index or None).

    `own` holds (source index, full passage text, first page, last page) of the discussed paper's sources."""
    if not own:
        return "Not found in the paper.", None
    quoted = extract(question_vector, [text for _, text, _, _ in own], encode, limit=1)
    marks = list(SOURCE_REF.finditer(quoted))
    if not marks:
        return "Not found in the paper.", None
    n = int(marks[-1].group(1))
    if not 1 <= n <= len(own):
        return "Not found in the paper.", None
    sentence, mark = _quote(SOURCE_REF.sub("", quoted).strip(), own[n - 1], grounder)
    return f'{NOT_FOUND} "{sentence}" {mark}.', own[n - 1][0]


def quoted_answer(position: int, sentence: str, own: Sequence[tuple[int, str, int, int]],
                  grounder: SourceGrounder | None = None) -> tuple[str, int]:
    """The answer that quotes the paper's own sentence (of `own[position]`'s passage) cited with its page;
    (text, source index). Used when the model's sentences failed the check but the passage answers."""
    quote, mark = _quote(sentence, own[position], grounder)
    return f'{QUOTED} "{quote}" {mark}.', own[position][0]


def _quote(sentence: str, source: tuple[int, str, int, int], grounder: SourceGrounder | None) -> tuple[str, str]:
    """The sentence as quoted (passage_answer.cut_quote), and the citation of the page(s) of the source's passage it is on
    ("[p. 4]", or "[pp. 4-5]" for a sentence that runs over a page break), recorded as the source's label."""
    index, _, first, last = source
    sentence = cut_quote(sentence)
    start = end = first
    if grounder is not None and first != last:
        for group in grounder.groups:
            if index in group.indices:
                pages = group.grounder
                chunk = pages.chunks[group.indices.index(index)]
                on = verbatim_pages(sentence, first, last, pages.page)
                start, end = on or (pages.pages_for(sentence, chunk)[0],) * 2
    mark = f"[p. {start}]" if start == end else f"[pp. {start}-{end}]"
    if grounder is not None:
        grounder.labels[index] = mark  # the citation names the page the quote is on
    return sentence, mark


def verbatim_pages(sentence: str, first: int, last: int, page_text: Callable[[int], str]) -> tuple[int, int] | None:
    """The page holding the quoted sentence word for word, or the two pages it runs over; None when no page
    or pair of pages holds it as written."""
    quote = " ".join(sentence.removesuffix(" ...").split())
    texts = {p: " ".join((page_text(p) or "").split()) for p in range(first, last + 1)}
    for p in range(first, last + 1):
        if quote in texts[p]:
            return p, p
    for p in range(first, last):
        if quote in f"{texts[p]} {texts[p + 1]}":
            return p, p + 1
    return None
