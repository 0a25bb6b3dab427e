"""An answer picks its evidence sentences before phrasing them: orchestration with a scripted stand-in.

ScriptedFakeLLM is not a model (see tests/fake_llm.py): it replays the picks and phrasings a model might
give, so what the answer does with each runs deterministically over a real library (SQLite, tantivy, the
real embedder). Here it is declared able to follow a JSON grammar, as the local and remote backends are.
"""

import re

import pytest

from fake_llm import ScriptedFakeLLM
from paperdesk.core.agents import answer as answers
from paperdesk.core.agents import selection
from paperdesk.core.llm.backend import Capabilities

pytestmark = pytest.mark.slow
QUESTION = "How much were the participants of the CiteSee lab study compensated?"


class GrammarFakeLLM(ScriptedFakeLLM):
    """A FAKE model, as ScriptedFakeLLM, whose backend claims a JSON grammar (so the answer picks first)."""

    capabilities = Capabilities(streams=True, json_schema=True)


@pytest.fixture(scope="module")
def library(tmp_path_factory, embedder):
    from library_helpers import library_with

    with library_with(tmp_path_factory.mktemp("picks"), embedder, "2302.07302v1.pdf") as lib:
        yield lib


def candidates_for(library, question):
    hits = answers.retrieve(library, question)
    chunks = library.store.chunks_by_ids([h.chunk_id for h in hits])
    from paperdesk.core.agents.answer_selected import evidence_for

    return hits, selection.candidates(evidence_for(library, question, hits, [chunks[h.chunk_id].text for h in hits]))


def number_of(found, pattern):
    return next(n for n, c in enumerate(found, start=1) if re.search(pattern, c.text))


def test_nothing_picked_says_so_and_offers_no_figure_as_the_answer(library):
    fake = GrammarFakeLLM(['{"answer": []}'])
    result = answers.answer(library, fake, "How many GPUs trained the CiteSee model?", recall_k=0, select=True)
    assert len(fake.requests) == 1 and fake.requests[0].json_schema is not None  # one call: the pick
    assert result.not_found and result.text.startswith(answers.NOT_FOUND)
    head = result.text[:len(answers.NOT_FOUND)]
    assert not re.search(r"\d", head) and result.citations  # the closest sentences are still shown, cited



def test_nothing_picked_and_nothing_close_enough_to_quote_says_so_without_blaming_the_library(library, monkeypatch):
    from paperdesk.core.agents import answer_selected

    monkeypatch.setattr(answer_selected, "extract", lambda *args, **kwargs: "")  # no whole sentence to quote
    fake = GrammarFakeLLM(['{"answer": []}'])
    result = answers.answer(library, fake, "How many GPUs trained the CiteSee model?", recall_k=0, select=True)
    assert result.not_found and result.text == answers.NONE_STATED  # passages were read: not "add papers"
    assert result.text != answers.NOTHING_FOUND and result.hits

def test_a_phrasing_with_a_figure_its_sentences_do_not_state_is_replaced_by_the_picked_sentence(library):
    hits, found = candidates_for(library, QUESTION)
    paid = number_of(found, r"\$\s?35|35 USD")
    fake = GrammarFakeLLM([f'{{"answer": [{paid}]}}', f"Each participant was paid $50 [{paid}]."])
    result = answers.answer(library, fake, QUESTION, recall_k=0, select=True)
    assert "$50" not in result.text and "35" in result.text and result.fallback  # quoted, not invented
    assert result.citations and result.citations[0]["paper_id"] == hits[0].paper_id
    # the phrasing continued the picking conversation: its prompt is the pick's, plus the reply and one turn
    pick, phrase = fake.requests
    assert phrase.messages is None and phrase.prompt.startswith(pick.prompt)


def test_a_phrasing_that_states_its_sentence_is_shown_citing_that_sentence_s_passage(library):
    hits, found = candidates_for(library, QUESTION)
    paid = number_of(found, r"\$\s?35|35 USD")
    fake = GrammarFakeLLM([f'{{"answer": [{paid}]}}', f"Participants were compensated $35 USD [{paid}]."])
    result = answers.answer(library, fake, QUESTION, recall_k=0, select=True)
    assert not result.fallback and not result.not_found
    assert "$35 USD" in result.text
    assert result.hits[0].chunk_id == hits[found[paid - 1].hit].chunk_id  # the picked passage comes first
    cited = library.store.chunks_by_ids([c["chunk_id"] for c in result.citations])
    assert result.citations and all("35" in chunk.text for chunk in cited.values())  # a passage stating it


def test_a_comparison_turned_around_is_not_shown(library):
    hits, found = candidates_for(library, QUESTION)
    paid = number_of(found, r"\$\s?35|35 USD")
    fake = GrammarFakeLLM([f'{{"answer": [{paid}]}}', f"Participants were paid less than $35 USD [{paid}]."])
    result = answers.answer(library, fake, QUESTION, recall_k=0, select=True)
    assert "less than" not in result.text and result.fallback


def test_one_reading_budget_goes_where_the_fitting_sentences_are(library):
    """evidence.reading: the best sentences over all passages, each passage's in its own order, within budget."""
    from paperdesk.core.agents import evidence

    hits = answers.retrieve(library, QUESTION)
    chunks = library.store.chunks_by_ids([h.chunk_id for h in hits])
    texts = [chunks[h.chunk_id].text for h in hits]
    read = evidence.reading(library, QUESTION, hits, texts, 120)
    assert len(read) == len(hits) and sum(len(t.split()) for t in read) <= 120 + len(hits)  # "…" marks
    assert any(re.search(r"\$\s?35|35 USD", t) for t in read)  # the sentence stating the pay is read
    for passage, text in zip(read, texts):  # nothing but the passage's own sentences, in its order
        flat = " ".join(text.split())
        at = 0
        for part in [p.strip() for p in passage.split("…") if p.strip()]:
            found = flat.find(part[:40], at)
            assert found >= 0, part[:60]
            at = found
