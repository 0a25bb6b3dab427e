"""The passage a summary's page citation stands for: the sentence(s) of the cited page its sentence comes from.

A summary stores its text with `[p. N]` markers, not which page sentence each
of its sentences was grounded in. So the passage is found again the way
grounding accepts it (claims.coverage: the share of the summary sentence's
content words a passage contains): among the page's sentences, alone or two
in a row, the one that covers the citing sentence best, preferring the
shorter on a tie.
"""

from __future__ import annotations

from paperdesk.core.agents.citations import CITATION
from paperdesk.core.agents.claims import content_words, coverage
from paperdesk.core.agents.quality import split_sentences

WINDOW = 2  # page sentences a passage may span
MIN_COVER = 0.2  # below this share of its words, no page sentence is the source


def citing_sentences(text: str, page: int) -> list[str]:
    """The text's sentences that cite `page` ([p. N], or a [pp. N-M] range holding it), in reading order."""
    found = []
    for sentence in split_sentences(text):
        for m in CITATION.finditer(sentence):
            first = int(m.group(1))
            last = int(m.group(2) or first)
            if first <= page <= last:
                found.append(sentence)
                break
    return found


def source_passage(sentence: str, page_text: str) -> str:
    """The page sentence(s) `sentence` most likely comes from ("" when none shares enough of its words)."""
    claim = CITATION.sub(" ", sentence)
    if not content_words(claim):
        return ""
    flat = " ".join(page_text.split())
    candidates = [s for s in split_sentences(flat) if len(s.split()) >= 3]
    best, best_score = "", MIN_COVER
    for i in range(len(candidates)):
        for n in range(1, WINDOW + 1):
            if i + n > len(candidates):
                break
            passage = " ".join(candidates[i : i + n])
            score = coverage(claim, passage) - 0.01 * (n - 1)  # a second sentence must add words to win
            if score > best_score:
                best, best_score = passage, score
    return best


def summary_passage(text: str, page: int, page_text: str) -> str:
    """For a summary's `[p. page]`: the page passage its first sentence citing that page comes from."""
    for sentence in citing_sentences(text, page):
        passage = source_passage(sentence, page_text)
        if passage:
            return passage
    return ""
