"""An answer that would say "not found" from each passage's best sentence and neighbours reads more of the
passages (their best-fitting sentences wherever they stand) and is written once more; "not found" stands
unless that answer holds up.

Real library (SQLite, tantivy, the real embedder) of the CiteSee fixture paper. ScriptedFakeLLM is NOT a
model (see tests/fake_llm.py): it replies what a small model sometimes does, so which answer stands is
deterministic.
"""

import pytest

from fake_llm import ScriptedFakeLLM
from paperdesk.core.agents import answer as answers
from paperdesk.core.agents.answer_result import NOT_FOUND
from paperdesk.core.agents import evidence
from paperdesk.core.agents.evidence import evidence_sentences

pytestmark = pytest.mark.slow

QUESTION = "How many GPUs trained the CiteSee model?"  # no sentence of the paper answers it
INVENTED = "Eight GPUs trained the CiteSee model [1]."


@pytest.fixture(scope="module")
def library(tmp_path_factory, embedder):
    from library_helpers import library_with

    with library_with(tmp_path_factory.mktemp("second-look"), embedder, "2302.07302v1.pdf") as lib:
        yield lib


def _stated(library, in_first_reading: bool):
    """A sentence of the passages found for QUESTION, as a writer would copy it citing its passage, that the
    first reading (each passage's best sentence and neighbours) holds or lacks and the wider reading holds (a
    writer copies only what it was shown). The earliest passage holding one gives it: which passage that is
    follows the embedder's ranking, which differs in its last digits from one CPU to another."""
    hits = answers.retrieve(library, QUESTION, 5, recall_k=0)
    chunks = library.store.chunks_by_ids([h.chunk_id for h in hits])
    full = [chunks[h.chunk_id].text for h in hits]
    read = " ".join(" ".join(evidence.windows(library, QUESTION, hits, full, answers.EVIDENCE_WORDS)).split())
    readings = evidence.reading(library, QUESTION, hits, full, 450)
    number = 0  # the passage's number in the wider prompt, which leaves out a passage with nothing to read
    for text, reading in zip(full, readings):
        if not reading.strip():
            continue
        number += 1
        for s in evidence_sentences(text):
            plain = " ".join(s.split())
            if (10 <= len(s.split()) <= 40 and "CiteSee" in s and (plain in read) == in_first_reading
                    and plain in " ".join(reading.split())):
                return s.rstrip(". ") + f" [{number}]."
    raise AssertionError("no passage holds a sentence of the kind the test needs")


def test_a_not_found_answer_is_written_again_from_more_of_the_passages(library):
    stated = _stated(library, in_first_reading=False)
    writer = ScriptedFakeLLM([INVENTED, INVENTED, stated])
    streamed: list[str] = []
    result = answers.answer(library, writer, QUESTION, recall_k=0, second_look=450, on_token=streamed.append)
    assert len(writer.requests) == 3  # two attempts from the windows, one from the wider reading
    first, wider = writer.requests[0].prompt, writer.requests[2].prompt
    assert len(wider.split()) > len(first.split())
    assert not result.not_found and not result.fallback, result.text
    assert stated.rsplit(" [", 1)[0] in result.text and result.citations
    assert result.text in "".join(streamed)


def test_an_answer_from_what_the_first_reading_held_is_not_taken(library):
    """The writer found nothing in those sentences the first time; saying one of them now is a guess."""
    held = _stated(library, in_first_reading=True)
    writer = ScriptedFakeLLM([INVENTED, INVENTED, held])
    result = answers.answer(library, writer, QUESTION, recall_k=0, second_look=450)
    assert len(writer.requests) == 3
    assert result.not_found or result.fallback, result.text


def test_a_second_look_that_finds_nothing_keeps_the_first_not_found(library):
    writer = ScriptedFakeLLM([INVENTED])
    streamed: list[str] = []
    result = answers.answer(library, writer, QUESTION, recall_k=0, second_look=450, on_token=streamed.append)
    assert len(writer.requests) == 4  # two attempts each time
    assert result.not_found or result.fallback
    assert "Eight" not in result.text
    shown = "".join(streamed)  # the first "not found" is not streamed a second time, nor anything invented
    assert shown.count(result.text.split(";")[0]) <= 1 and "Eight" not in shown, (result.text, shown)


def test_without_a_second_look_a_not_found_answer_is_final(library):
    writer = ScriptedFakeLLM([INVENTED, INVENTED, "never asked"])
    result = answers.answer(library, writer, QUESTION, recall_k=0, second_look=0)
    assert len(writer.requests) == 2
    assert result.text.startswith(NOT_FOUND) or result.fallback


def test_an_answer_that_ends_quoting_the_passages_streams_them(library):
    """The streamed text is all a terminal shows: an answer that ends as the passages' quoted sentences
    (no draft held up, twice) must stream them, not leave the reader with a list of sources alone."""
    writer = ScriptedFakeLLM([INVENTED])
    streamed: list[str] = []
    result = answers.answer(library, writer, QUESTION, recall_k=0, second_look=0, on_token=streamed.append)
    assert result.not_found or result.fallback, result.text
    assert result.text and result.text in "".join(streamed)
    assert "Eight" not in "".join(streamed)
