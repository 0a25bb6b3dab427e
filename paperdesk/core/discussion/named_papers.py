"""Which other library papers a question names: the only ones a discussion's teacher may draw on.

A discussion is about one paper. Another library paper's passage fits some
questions better than the paper's own (the two papers share a topic), and an
answer taken from it reads as the discussed paper's. So the teacher reads
another paper only when the question names it: by its library or arXiv id,
by its short title (the part before the colon, or the whole title), or by
most of its title's own words (those the discussed paper's title does not
share, by stem).
"""

from __future__ import annotations

import re
from typing import Any, Sequence

from paperdesk.core.agents.evidence import stems

TITLE_SHARE = 0.5  # share of a title's own words a question must hold to name the paper by them
TITLE_WORDS = 2  # and at least this many of them


def _flat(text: str) -> str:
    return " ".join(text.lower().replace("’", "'").split())


def _says(text: str, phrase: str) -> bool:
    return bool(phrase) and re.search(rf"(?<![\w.-]){re.escape(phrase)}(?![\w-])", text) is not None


def names_paper(question: str, paper: Any, own_title: str = "") -> bool:
    """Whether `question` names `paper` (anything with `id`, `title` and optionally `arxiv_id`)."""
    asked = _flat(question)
    ids = {str(paper.id).lower(), str(getattr(paper, "arxiv_id", "") or "").lower()}
    if any(_says(asked, i) for i in ids if len(i) >= 5):
        return True
    title = _flat(paper.title or "")
    short = title.split(":", 1)[0].strip()
    if 3 <= len(short) <= 80 and _says(asked, short) and short != _flat(own_title).split(":", 1)[0].strip():
        return True
    own_words = stems(paper.title or "") - stems(own_title)
    held = own_words & stems(question)
    return len(held) >= TITLE_WORDS and len(held) >= TITLE_SHARE * len(own_words)


def named_papers(question: str, papers: Sequence[Any], own_id: str, own_title: str = "") -> list[str]:
    """The ids of the papers other than the discussed one that `question` names, in library order."""
    return [p.id for p in papers if p.id != own_id and names_paper(question, p, own_title)]
