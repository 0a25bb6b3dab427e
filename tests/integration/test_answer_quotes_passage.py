"""Before an answer says "not found", a passage's own sentence holding the question's words answers it,
quoted and cited; an answer that only says the question back is no answer.

Real library (SQLite, tantivy, the real embedder) of the CiteSee fixture paper. FakeLLM is NOT a model (see
tests/fake_llm.py): it writes what a small model sometimes does, so what the answer keeps is deterministic.
"""

import re

import pytest

from fake_llm import FakeLLM
from paperdesk.core.agents import answer as answers
from paperdesk.core.agents.answer_result import NOT_FOUND, QUOTED

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def library(tmp_path_factory, embedder):
    from library_helpers import library_with

    with library_with(tmp_path_factory.mktemp("quotes"), embedder, "2302.07302v1.pdf") as lib:
        yield lib


def _quoted(result, library):
    quote, n = re.match(rf'{re.escape(QUOTED)} "(.+?)" \[(\d+)\]\.$', result.text).groups()
    (cited,) = [c for c in result.citations if c["n"] == int(n)]
    chunk = library.store.chunks_by_ids([cited["chunk_id"]])[cited["chunk_id"]]
    return quote.removesuffix(" ..."), " ".join(chunk.text.split())


def test_an_unsupported_answer_gives_way_to_the_passage_sentence_that_holds_the_question(library):
    invented = FakeLLM("CiteSee highlights 4,217 citations in green on page 93 [1].")
    result = answers.answer(library, invented, "Which citations does CiteSee highlight in the current paper?",
                            recall_k=0)
    quote, passage = _quoted(result, library)
    assert quote in passage and "4,217" not in result.text
    assert not result.not_found and not result.fallback


def test_an_answer_that_only_says_the_question_back_is_not_shown(library):
    echo = FakeLLM("CiteSee uses reading history to highlight citations [1].")
    result = answers.answer(library, echo, "How does CiteSee use reading history to highlight citations?",
                            recall_k=0)
    assert result.text != "CiteSee uses reading history to highlight citations [1]."
    assert result.text.startswith((QUOTED, NOT_FOUND)), result.text


def test_a_question_no_sentence_holds_is_still_not_found(library):
    invented = FakeLLM("Eight GPUs trained it [1].")
    result = answers.answer(library, invented, "How many GPUs trained the CiteSee model?", recall_k=0)
    assert not result.text.startswith(QUOTED), result.text


def test_a_not_found_answer_streams_once(library):
    streamed: list[str] = []
    echo = FakeLLM("CiteSee trains a model on GPUs [1].")
    result = answers.answer(library, echo, "How many GPUs trained the CiteSee model?", recall_k=0,
                            on_token=streamed.append)
    shown = "".join(streamed)
    assert result.text in shown and shown.count(result.text.split(";")[0]) == 1, (result.text, shown)


@pytest.mark.parametrize("draft, question", [
    ("CiteSee highlights 4,217 citations in green on page 93 [1].",
     "Which citations does CiteSee highlight in the current paper?"),
    ("CiteSee uses reading history to highlight citations [1].",
     "How does CiteSee use reading history to highlight citations?"),
])
def test_the_stream_ends_with_the_answer_that_stands_and_never_says_not_found_before_a_quote(library, draft,
                                                                                            question):
    streamed: list[str] = []
    result = answers.answer(library, FakeLLM(draft), question, recall_k=0, on_token=streamed.append)
    shown = "".join(streamed)
    assert shown.rstrip().endswith(result.text), (result.text, shown)
    if result.text.startswith(QUOTED):
        assert "Not found" not in shown, shown


def test_a_withdrawn_draft_that_gives_way_to_a_quote_streams_the_quote_not_a_not_found(library, monkeypatch):
    question = "Which citations does CiteSee highlight in the current paper?"
    quote, _ = _quoted(answers.answer(library, FakeLLM("It highlights 4,217 citations [1]."), question,
                                      recall_k=0), library)
    monkeypatch.setattr(answers, "off_question", lambda *args: True)  # the supported draft is withdrawn
    streamed: list[str] = []
    result = answers.answer(library, FakeLLM(f"{quote} [1]."), question, recall_k=0, on_token=streamed.append)
    shown = "".join(streamed)
    assert result.text.startswith(QUOTED) and shown.rstrip().endswith(result.text), (result.text, shown)
    assert "Not found" not in shown and shown.count(answers.WITHDRAWN) == 1, shown
