"""The default writer, Qwen2.5-Coder-1.5B-Instruct, through the app's own path: the catalogue name in
llm.writer_model, the factory's backend, a grounded answer over a real library. `make test` installs it
(`paperdesk models install qwen2.5-coder-1.5b`); every other test writes with the tiny Gemma."""

from __future__ import annotations

import pytest

from conftest import PAPERS
from paperdesk.core.agents import answer as answers, sentence_judge
from paperdesk.core.llm import catalogue
from paperdesk.core.llm.factory import make_backend
from settings_for import settings_for

pytestmark = pytest.mark.slow
WRITER = "qwen2.5-coder-1.5b"


def test_the_qwen_writer_answers_from_the_paper(tmp_home, embedder):
    from paperdesk.core.library.library import Library

    settings = settings_for(tmp_home, PAPERDESK_LLM_WRITER_MODEL=WRITER, PAPERDESK_LLM_N_CTX="2048")
    if catalogue.installed_path(catalogue.BY_NAME[WRITER], settings) is None:
        pytest.fail(f"{WRITER} is not installed: run `make test` or `paperdesk models install {WRITER}`")
    backend = make_backend(settings)
    assert backend.model_path.name == catalogue.BY_NAME[WRITER].file_name
    assert "<|im_start|>" in (backend.chat_template or "")  # Qwen's own chat template drives the prompt
    library = Library(settings, embedder=embedder)
    streamed: list[str] = []
    try:
        library.add_pdf(PAPERS / "2302.07302v1.pdf")
        result = answers.answer(library, backend, "What does CiteSee highlight for the reader?", k=3,
                                max_tokens=32, on_token=streamed.append)
    finally:
        library.close()
    assert backend.llama().n_tokens > 0  # this model, loaded once, did the work
    assert not result.fallback, result.gate_failures  # the model's own words passed the gate, not quoted passages
    assert result.text not in (answers.NOTHING_FOUND, answers.NONE_STATED) and not result.numbers_flagged, result.text
    shown = "".join(streamed)
    assert "citation" in shown.lower() and result.citations, streamed  # streamed as written, on the question's topic


def test_the_qwen_writer_says_yes_to_the_sentence_that_answers(tmp_home):
    settings = settings_for(tmp_home, PAPERDESK_LLM_WRITER_MODEL=WRITER, PAPERDESK_LLM_N_CTX="2048")
    backend = make_backend(settings)
    system, opening, items = sentence_judge.prompt("How many participants took part in the study?", [
        "We recruited 18 participants, all graduate students, for the study.",
        "Participants read papers in a web interface that highlights citations.",
        "Reading scientific papers is an important part of research work."])
    margins = backend.yes_margins(system, opening, items)
    assert margins[0] > max(margins[1:]) + 2, margins  # a clear gap: a likely yes against a sure no
