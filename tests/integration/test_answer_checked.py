"""An answer that passed every other gate is put back to the writer (answer_check.py): do the passages it
cites state it? An answer the writer doubts is withdrawn; one it affirms stands as written.

Real library (SQLite, tantivy, the real embedder) of the CiteSee fixture paper. StandInCheckingLLM is NOT a
model: it replies a scripted answer and canned yes/no margins, so which answer stands is deterministic. The
real writer's margins are read at the end, on the suite's small local model.
"""

import math

import pytest

from fake_llm import ScriptedFakeLLM
from paperdesk.core.agents import answer as answers, answer_check
from paperdesk.core.agents.evidence import evidence_sentences
from paperdesk.core.llm.backend import Capabilities
from paperdesk.core.search.reader import sentence_encoder

pytestmark = pytest.mark.slow
QUESTION = "What do CiteSee's citation markers show the reader?"


class StandInCheckingLLM(ScriptedFakeLLM):
    """A FAKE model: scripted replies, and `margins` for every yes/no it is asked (recorded)."""

    capabilities = Capabilities(streams=True, json_schema=False, judges=True)

    def __init__(self, replies: list[str], margins: list[float]) -> None:
        super().__init__(replies)
        self.margins, self.asked = margins, []

    def yes_margins(self, system, opening, items, cancel=None, seconds=None):
        self.asked.append((opening, list(items)))
        return self.margins[: len(items)]


@pytest.fixture(scope="module")
def library(tmp_path_factory, embedder):
    from library_helpers import library_with

    with library_with(tmp_path_factory.mktemp("checked"), embedder, "2302.07302v1.pdf") as lib:
        yield lib


@pytest.fixture(scope="module")
def copied(library):
    """A sentence of a window the answer reads, as a writer copies it citing that window's number, and the
    window. The sentence cites no paper of its own ("[9]"): that would be read as a citation of the answer's."""
    hits = answers.retrieve(library, QUESTION, 5, recall_k=0)
    chunks = library.store.chunks_by_ids([h.chunk_id for h in hits])
    _, _, windows = answers.first_windows(library, None, QUESTION, hits, [chunks[h.chunk_id].text for h in hits],
                                          sentence_encoder(library.settings, library.embedder))
    for n, window in enumerate((w for w in windows if w.strip()), start=1):
        plain = [s for s in evidence_sentences(window) if 8 <= len(s.split()) <= 40 and "[" not in s]
        if plain:
            return max(plain, key=lambda s: len(s.split())).rstrip(". ") + f" [{n}].", window
    raise AssertionError("no window holds a sentence of the kind the test needs")


def _write(library, writer, streamed, check=True):
    hits = answers.retrieve(library, QUESTION, 5, recall_k=0)
    return answers.write(library, writer, QUESTION, hits, on_token=streamed.append, second_look=0, check=check)


def test_an_answer_the_writer_affirms_stands_and_it_was_asked_of_the_cited_window(library, copied):
    draft, window = copied
    writer = StandInCheckingLLM([draft], [3.0, 2.0])
    result = _write(library, writer, [])
    assert not result.not_found and not result.fallback, result.text
    assert draft.rsplit(" [", 1)[0] in result.text
    (opening, items), = writer.asked
    assert opening == f"Question: {QUESTION}" and len(items) == 2
    assert " ".join(window.split())[:200] in items[0] and "Proposed answer" in items[0]
    assert draft.rsplit(" [", 1)[0] in items[0]  # the answer, its citation number left out


def test_an_answer_the_writer_doubts_is_withdrawn_on_screen_too(library, copied):
    draft, _ = copied
    writer = StandInCheckingLLM([draft], [-4.0, -3.0])
    streamed: list[str] = []
    result = _write(library, writer, streamed)
    shown = "".join(streamed)
    assert len(writer.asked) == 1
    assert result.not_found or result.text.strip() != draft.strip(), result.text
    assert shown.index(draft.rsplit(" [", 1)[0]) < shown.index(answers.WITHDRAWN), shown


def test_with_the_check_off_the_writer_is_not_asked(library, copied):
    draft, _ = copied
    writer = StandInCheckingLLM([draft], [-4.0, -3.0])
    result = _write(library, writer, [], check=False)
    assert writer.asked == [] and not result.not_found


def test_the_real_writer_gives_a_finite_margin_for_an_answer_and_its_window(copied, local_backend):
    draft, window = copied
    value = answer_check.margin(local_backend, QUESTION, draft.rsplit(" [", 1)[0] + " [1].", [window])
    assert value is not None and math.isfinite(value)
