"""What the writer does behind the answer stays out of it: a second attempt is announced in the status line
(a progress note), never as "[...; writing it again]" in the streamed draft, and a sentence that echoes the
prompt's scaffolding ("citing pages like [p. 3") never streams. Real library; FakeLLM is a scripted text, not a
model (pure orchestration of the attempts)."""

import pytest

from conftest import PAPERS
from fake_llm import FakeLLM
from paperdesk.core.agents import answer as answers
from paperdesk.core.agents.answer_result import QUOTED

pytestmark = pytest.mark.slow
QUESTION = "how do readers keep track of citations"
TOO_SHORT = "Yes, they do."  # fails the quality check ("empty") on both attempts


def test_a_second_attempt_is_a_status_note_not_text_in_the_answer(library):
    library.add_pdf(PAPERS / "2302.07302v1.pdf")
    hits = answers.retrieve(library, QUESTION)
    streamed: list[str] = []
    notes = []
    result = answers.write(library, FakeLLM(TOO_SHORT), QUESTION, hits, on_token=streamed.append, note=notes.append)
    shown = "".join(streamed)
    # failed twice: the passage sentence holding the question is quoted, else the closest passages are
    assert result.regenerated and (result.fallback or result.text.startswith(QUOTED))
    assert any("writing it again" in n.stage for n in notes)
    for internal in ("writing it again", "[empty", "empty;"):
        assert internal not in shown and internal not in result.text


def test_a_sentence_echoing_the_prompt_never_streams(library):
    library.add_pdf(PAPERS / "2302.07302v1.pdf")
    hits = answers.retrieve(library, QUESTION)
    streamed: list[str] = []
    text = ("Its Method section says, citing pages like [p. 3. CiteSee highlights citations the reader has "
            "already saved or opened.")
    result = answers.write(library, FakeLLM(text), QUESTION, hits, on_token=streamed.append)
    shown = "".join(streamed)
    assert "citing pages like" not in shown and "citing pages like" not in result.text
    assert "section says" not in shown
