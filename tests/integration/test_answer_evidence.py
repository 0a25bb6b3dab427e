"""Answer evidence on a real library: reference lists stay searchable but never feed an answer, and the
fact gate withholds unsupported sentences from the stream (FakeLLM: a scripted text, not a model)."""

import pytest

from conftest import PAPERS
from fake_llm import FakeLLM
from paperdesk.core.agents import answer as answers

pytestmark = pytest.mark.slow
BIBLIOGRAPHIC = "augmenting scientific papers with just-in-time position-sensitive definitions"


def test_reference_lists_are_searchable_but_not_answer_evidence(library):
    paper = library.add_pdf(PAPERS / "2302.07302v1.pdf").paper
    assert "References" in [h.section for h in library.search(BIBLIOGRAPHIC, k=5, papers=[paper.id])]
    hits = answers.retrieve(library, BIBLIOGRAPHIC, 5, papers=[paper.id])
    assert hits and not {"References", "Front matter"} & {h.section for h in hits}
    # a question about what the paper cites may use them
    cites = answers.retrieve(library, "Which papers in the reference list are about definitions?", 5,
                             papers=[paper.id])
    assert "References" in [h.section for h in cites]


def test_a_what_problem_question_reads_the_abstract_or_introduction(library):
    paper = library.add_pdf(PAPERS / "2302.07302v1.pdf").paper
    hits = answers.retrieve(library, "What problem does the paper address?", 5, papers=[paper.id])
    assert {"Abstract", "1 Introduction"} & {h.section for h in hits}


def test_unsupported_sentences_never_reach_the_stream_or_the_stored_text(library):
    library.add_pdf(PAPERS / "2302.07302v1.pdf")
    question = "how many participants took part in the lab study"
    hits = answers.retrieve(library, question)
    invented = "It was published in the journal SQuALITY (https://doi.org/10.3748/squality.2021.06) in 2021."
    fake = FakeLLM(f"Six participants were recruited and each was compensated $35 USD. {invented}")
    streamed: list[str] = []
    result = answers.write(library, fake, question, hits, on_token=streamed.append)
    shown = "".join(streamed)
    assert "Six participants" in shown and "Six participants" in result.text
    for fact in ("SQuALITY", "10.3748", "2021"):
        assert fact not in shown and fact not in result.text
    assert result.dropped == [invented] and not result.not_found


def test_an_answer_the_passages_do_not_support_is_shown_as_not_found(library):
    library.add_pdf(PAPERS / "2302.07302v1.pdf")
    question = "how many participants took part in the lab study"
    hits = answers.retrieve(library, question)
    streamed: list[str] = []
    result = answers.write(library, FakeLLM("Sunny afternoons make everyone cheerful and relaxed outdoors."),
                           question, hits, on_token=streamed.append)
    assert result.not_found and result.text.startswith(answers.NOT_FOUND) and result.citations
    assert "".join(streamed).rstrip().endswith(result.text)


def test_the_teacher_never_answers_from_the_reference_list(library):
    from paperdesk.core.discussion.outline import build_outline
    from paperdesk.core.discussion.student import Topic
    from paperdesk.core.discussion.teacher import Teacher

    paper = library.add_pdf(PAPERS / "2302.07302v1.pdf").paper
    teacher = Teacher(library, FakeLLM(""), build_outline(library.store, paper.id, paper.title))
    for question, topic in ((BIBLIOGRAPHIC, Topic("section", "References", section="References")),
                            ("What problem does the paper address?", Topic("section", "Introduction"))):
        sections = {s.section for s in teacher.gather(question, topic)}
        assert sections and not {"References", "Front matter"} & sections, sections


def test_the_evidence_an_answer_reads_holds_the_fact_asked_for(library):
    """On the real paper and encoder: "paid" finds "compensated $35 USD" in the field-deployment section, and
    a count question finds the sentence counting the thing asked about (the dev set's own check)."""
    from paperdesk.bench import qa

    paper = library.add_pdf(PAPERS / "2302.07302v1.pdf").paper
    questions = {q.id: q for q in qa.load_questions(PAPERS.parent / "qa_dev.jsonl")}
    for qid in ("citesee-1", "citesee-2", "citesee-5"):
        row = qa.evidence_row(library, library.settings, questions[qid], paper.id)
        assert row["held"] and row["on_target"], (qid, row["windows"])
        # the payment and the baselines are stated in the best-ranked window, the one answers come out right from
        assert row["first"] or qid == "citesee-1", (qid, row["windows"][:1])


def test_a_figure_from_the_passage_the_writer_was_not_shown_is_withheld(library):
    """The writer reads each passage's window, not its whole chunk: a number that only the unread rest of
    the chunk holds is one it made up, and the sentence carrying it is withheld."""
    import re

    from paperdesk.core.agents import evidence
    from paperdesk.core.agents.quality import numbers

    library.add_pdf(PAPERS / "2302.07302v1.pdf")
    question = "how many participants took part in the lab study"
    hits = answers.retrieve(library, question)
    texts = [library.store.chunks_by_ids([h.chunk_id])[h.chunk_id].text for h in hits]
    shown = evidence.windows(library, question, hits, texts, answers.EVIDENCE_WORDS, distinct=True)
    seen = numbers(" ".join([question, *shown, *(str(h.page_start) for h in hits)]))
    unread = [w for w in re.findall(r"\b\d{2,4}\b", texts[0]) if float(w) not in seen]
    assert unread, "the first chunk has a number outside every window"
    invented = f"The study had {unread[0]} participants [1]."
    result = answers.write(library, FakeLLM(invented), question, hits)
    assert unread[0] not in result.text and invented in result.dropped
