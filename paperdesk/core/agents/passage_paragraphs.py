"""A passage's paragraph breaks, so that its sentences end where its paragraphs do.

A chunk's stored text runs its paragraphs together (search and embeddings read words, not layout). Cut into
sentences, that glues a section heading, a line of code or a block of console output onto the prose sentence
after it: the heading's words lift the sentence it opens, and a default stated in prose sits in one "sentence"
with the different figure in the code beside it. The stored pages keep their paragraphs (blank-line
separated), so an answer's passages get their breaks back by laying a chunk's words over its pages' words.

A break that a sentence runs on across (a line broken inside a sentence, a page turned mid-sentence) is not
kept: the text before it ends without a full stop or colon and the text after it opens in lower case, or the
text before ends inside a phrase (a comma, a hyphen, an open bracket).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Sequence

if TYPE_CHECKING:
    from paperdesk.core.db.records import Chunk
    from paperdesk.core.db.store import Store

PARAGRAPH = "\n\n"  # a passage's paragraph break: chunk text never holds one (a table's rows are single lines)
_OPENING = 12  # the opening words that place a chunk on its pages


def runs_on(before: str, after: str) -> bool:
    """Whether one sentence goes on across the break between paragraph `before` and paragraph `after`."""
    if before[-1:] in ".?!:":
        return False
    return before[-1:] in ",-(" or not (after[:1].isupper() or after[:1].isdigit())


def marked(text: str, pages: Sequence[str]) -> str:
    """`text`, a chunk of `pages` (their stored texts, in order), with PARAGRAPH at each paragraph break that
    ends a sentence; unchanged when it holds a line break already (a table's rows) or its words do not stand
    in that order on those pages."""
    own = text.split()
    if not own or "\n" in text:
        return text
    words: list[str] = []
    starts: list[int] = []
    for page in pages:
        for block in page.split("\n\n"):
            block_words = block.split()
            if block_words:
                starts.append(len(words))
                words.extend(block_words)
    at = _place(own, words)
    if at is None:
        return text
    cuts = [0, *(s - at for s in starts if at < s < at + len(own)), len(own)]
    paragraphs: list[str] = []
    for lo, hi in zip(cuts, cuts[1:]):
        part = " ".join(own[lo:hi])
        if paragraphs and runs_on(paragraphs[-1], part):
            paragraphs[-1] += " " + part
        else:
            paragraphs.append(part)
    return PARAGRAPH.join(paragraphs)


def _place(own: list[str], words: list[str]) -> int | None:
    """Where `own` stands whole in `words` (the first place), or None."""
    opening = own[:_OPENING]
    for i, word in enumerate(words):
        if word == opening[0] and words[i:i + len(opening)] == opening and words[i:i + len(own)] == own:
            return i
    return None


def passage_texts(store: "Store", chunks: Sequence["Chunk"]) -> list[str]:
    """Each chunk's text with its paragraph breaks (`marked`), read from its pages in the store."""
    pages: dict[tuple[str, int], str] = {}

    def page(paper_id: str, number: int) -> str:
        if (paper_id, number) not in pages:
            pages[(paper_id, number)] = store.page_text(paper_id, number) or ""
        return pages[(paper_id, number)]

    return [marked(c.text, [page(c.paper_id, n) for n in range(c.page_start, c.page_end + 1)]) for c in chunks]
