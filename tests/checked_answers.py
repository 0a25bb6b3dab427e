"""For tests of the answer check's orchestration: a stand-in writer with canned yes/no margins, and a sentence
an answer's first reading shows, as a writer copies it."""

from __future__ import annotations

from fake_llm import ScriptedFakeLLM
from paperdesk.core.agents import answer as answers
from paperdesk.core.agents.evidence import evidence_sentences
from paperdesk.core.llm.backend import Capabilities
from paperdesk.core.search.reader import sentence_encoder


class StandInCheckingLLM(ScriptedFakeLLM):
    """A FAKE model: scripted replies, and `margins` for every yes/no it is asked (recorded)."""

    capabilities = Capabilities(streams=True, json_schema=False, judges=True)

    def __init__(self, replies: list[str], margins: list[float]) -> None:
        super().__init__(replies)
        self.margins, self.asked = margins, []

    def yes_margins(self, system, opening, items, cancel=None, seconds=None):
        self.asked.append((opening, list(items)))
        return self.margins[: len(items)]


def copied_sentence(library, question: str) -> tuple[str, str]:
    """A sentence of a window the answer to `question` reads, as a writer copies it citing that window's number,
    and the window. The sentence cites no paper of its own ("[9]"): that would be read as a citation of the
    answer's."""
    hits = answers.retrieve(library, question, 5, recall_k=0)
    chunks = library.store.chunks_by_ids([h.chunk_id for h in hits])
    _, _, windows = answers.first_windows(library, None, question, hits, [chunks[h.chunk_id].text for h in hits],
                                          sentence_encoder(library.settings, library.embedder))
    for n, window in enumerate((w for w in windows if w.strip()), start=1):
        plain = [s for s in evidence_sentences(window) if 8 <= len(s.split()) <= 40 and "[" not in s]
        if plain:
            return max(plain, key=lambda s: len(s.split())).rstrip(". ") + f" [{n}].", window
    raise AssertionError("no window holds a sentence of the kind the test needs")
