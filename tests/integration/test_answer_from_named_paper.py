"""A question that names a paper, answered from another paper's passage, is "not found" on a real library,
and the stream says the sentence already shown is withdrawn (FakeLLM: a scripted text, not a model)."""

import pytest

from conftest import PAPERS
from fake_llm import FakeLLM
from paperdesk.core.agents import answer as answers
from paperdesk.core.agents.attribution import split_sentences

pytestmark = pytest.mark.slow


def test_an_answer_from_another_paper_than_the_named_one_is_withdrawn(library):
    citesee = library.add_pdf(PAPERS / "2302.07302v1.pdf").paper
    papermage = library.add_pdf(PAPERS / "papermage.pdf").paper
    question = "In the PaperMage paper, how many seconds does it take to process a paper of 10-15 pages?"
    # the passages read hold both papers (the rule reads which papers the question names among them)
    hits = (answers.retrieve(library, question, 3, papers=[citesee.id]) +
            answers.retrieve(library, question, 2, papers=[papermage.id]))
    texts = library.store.chunks_by_ids([h.chunk_id for h in hits])
    other = [n for n, h in enumerate(hits, start=1)
             if h.paper_id == citesee.id and "5-15 seconds" in texts[h.chunk_id].text]
    assert other, "CiteSee's processing-time passage should be among the passages read"
    streamed: list[str] = []
    result = answers.write(library, FakeLLM(f"A paper takes 5-15 seconds to process [{other[0]}]."), question,
                           hits, on_token=streamed.append)
    shown = "".join(streamed)
    assert result.not_found and result.text.startswith(answers.NOT_FOUND), result.text
    assert shown.index("5-15 seconds") < shown.index(answers.WITHDRAWN) < shown.index(answers.NOT_FOUND)
    assert shown.rstrip().endswith(result.text)

    unnamed = "How many seconds does it take to process a paper of 10-15 pages?"
    hits = answers.retrieve(library, unnamed)
    n = next(n for n, h in enumerate(hits, start=1) if "5-15 seconds" in
             library.store.chunks_by_ids([h.chunk_id])[h.chunk_id].text)
    kept = answers.write(library, FakeLLM(f"A paper takes 5-15 seconds to process [{n}]."), unnamed, hits)
    assert not kept.not_found and "5-15 seconds" in kept.text  # no paper named: any paper may answer


def test_a_streamed_answer_that_only_says_the_question_back_is_withdrawn_before_its_replacement(library):
    library.add_pdf(PAPERS / "2302.07302v1.pdf")
    question = "How many seconds does it take to process a paper?"
    restating = "It does take seconds to process a paper [1]."
    assert answers.restates_all(restating, question)
    hits = answers.retrieve(library, question)
    streamed: list[str] = []
    result = answers.write(library, FakeLLM(restating), question, hits, on_token=streamed.append)
    shown = "".join(streamed)
    assert result.text != restating
    assert shown.index("It does take seconds") < shown.index(answers.RESTATED)
    assert shown.rstrip().endswith(result.text)



def _listed(writer: FakeLLM) -> list[str]:
    """The passages of the writer's first prompt, as listed ("[n] (PaperMage, p. N) ...")."""
    request = writer.requests[0]
    prompt = request.prompt or "\n".join(m["content"] for m in request.messages or [])
    return [line for line in prompt.splitlines() if line.startswith("[") and "(PaperMage" in line]


def test_a_passage_found_twice_shows_what_its_first_window_did_not(library):
    library.add_pdf(PAPERS / "papermage.pdf")
    question = "How many seconds does it take to process a paper of 10-15 pages?"
    hits = answers.retrieve(library, question, 2)
    writer = FakeLLM("It takes a few seconds [1].")
    answers.write(library, writer, question, [hits[0], hits[0], hits[1]])
    first, again = (set(split_sentences(line.split(") ", 1)[1])) - {"…"} for line in _listed(writer)[:2])
    assert first and again and not first & again  # the same chunk read again: its other sentences


def test_a_passage_with_nothing_new_is_left_out_and_the_rest_keep_their_order(library, monkeypatch):
    library.add_pdf(PAPERS / "papermage.pdf")
    question = "How many seconds does it take to process a paper of 10-15 pages?"
    hits = answers.retrieve(library, question, 3)
    shown = ["Processing takes a few seconds.", "", "The toolkit is written in Python."]
    monkeypatch.setattr(answers, "first_windows",
                        lambda library, backend, question, hits, texts, *args, **kwargs: (hits, texts, list(shown)))
    writer = FakeLLM("It takes a few seconds [1].")
    result = answers.write(library, writer, question, hits)
    assert [line.split(") ", 1)[1] for line in _listed(writer)] == [shown[0], shown[2]]
    assert [h.chunk_id for h in result.hits] == [hits[0].chunk_id, hits[2].chunk_id]


def test_without_distinct_every_passage_keeps_its_place_and_number(library):
    library.add_pdf(PAPERS / "papermage.pdf")
    question = "How many seconds does it take to process a paper of 10-15 pages?"
    hits = answers.retrieve(library, question, 1)
    writer = FakeLLM("It takes a few seconds [2].")
    result = answers.write(library, writer, question, [hits[0], hits[0]], distinct=False)
    first, second = (line.split(") ", 1)[1] for line in _listed(writer))
    assert first == second  # a draft's [2] still means its second source
    assert [h.chunk_id for h in result.hits] == [hits[0].chunk_id] * 2
