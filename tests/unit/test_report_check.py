"""The research bench's report check: supported, vacuous and per-paper counts read from a report's text."""

from paperdesk.bench.report_check import body, check, vacuous

PAGES = {("a", 3): "The mixture is fitted with the EM algorithm, which alternates two steps until 1e-6.",
         ("b", 5): "Parameters are estimated by maximum likelihood or by moment matching for 12 distributions."}
CITATIONS = [{"n": 1, "paper_id": "a", "page": 3, "chunk_id": 10}, {"n": 2, "paper_id": "b", "page": 5, "chunk_id": 20}]
QUESTION = "How do the packages estimate their parameters?"


def page_text(paper: str, page: int) -> str:
    return PAGES.get((paper, page), "")


def test_supported_sentences_from_two_papers_are_counted_and_the_closing_parts_are_not_read():
    report = ("# How do the packages estimate their parameters?\n\n## First\n\n"
              "The mixture is fitted with the EM algorithm [1]. Parameters are estimated by maximum likelihood "
              "for 12 distributions [2]. The EM algorithm needs 40 iterations [1].\n\n"
              "## Sources\n\n[1] A (a), p. 3, chunk 10\n")
    found = check(report, QUESTION, CITATIONS, page_text)
    assert (found.sentences, found.supported, found.vacuous) == (3, 2, 0)
    assert found.papers == {"a", "b"} and found.chunks == {10, 20}
    assert found.unsupported_text == ["The EM algorithm needs 40 iterations [1]."]
    assert "Sources" not in body(report)


def test_a_sentence_that_only_restates_the_question_is_vacuous_even_when_cited():
    assert vacuous("Based on the information provided in the passages, here is how the packages estimate "
                   "their parameters: [2]", QUESTION)
    assert not vacuous("The packages estimate parameters by maximum likelihood [2].", QUESTION)
    report = "# Q\n\nBased on the passages, here is how the packages estimate parameters [1].\n"
    found = check(report, QUESTION, CITATIONS, page_text)
    assert (found.sentences, found.vacuous, found.supported) == (1, 1, 0)


def test_uncited_sentences_and_list_items_are_not_counted():
    report = "# Q\n\nThe packages differ.\n\n- EM [1]\n"
    assert check(report, QUESTION, CITATIONS, page_text).sentences == 0


def test_a_sentence_copying_a_prompt_template_is_counted_as_leaked_cited_or_not():
    from paperdesk.core.prompt_leaks import prompt_runs

    copied = " ".join(sorted(prompt_runs())[0]).capitalize()
    report = (f"# Q\n\nThe mixture is fitted with the EM algorithm [1]. {copied} in this work [2]. "
              f"{copied} again.\n")
    found = check(report, QUESTION, CITATIONS, page_text)
    assert found.leaked == 2
    assert all(copied in s for s in found.leaked_text)
    assert check("# Q\n\nThe mixture is fitted with the EM algorithm [1].\n", QUESTION, CITATIONS,
                 page_text).leaked == 0
