"""bench discuss's own checks: a stored teacher sentence against its cited page, and repeated questions."""

from __future__ import annotations

from paperdesk.bench.discuss_check import repeated, split, supported

PAGES = {
    ("own", 5): "Table 3 reports corpus statistics: S2ORC holds 81.1M papers, of which 8.1M have full text "
                "parsed by GROBID into paragraphs and sections.",
    ("other", 2): "LongEval proposes guidelines for human evaluation of long-form summaries.",
}


def page_text(paper: str, page: int) -> str:
    return PAGES.get((paper, page), "")


def test_a_sentence_is_supported_only_by_the_page_it_cites():
    good = "S2ORC holds 81.1M papers, and 8.1M of them have full text [p. 5]."
    wrong_number = "S2ORC holds 18.1M papers with full text [p. 5]."
    wrong_page = "S2ORC holds 81.1M papers [p. 4]."
    uncited = "S2ORC holds 81.1M papers."
    invented = "GROBID is optimized for processing non-paper academic documents [p. 5]."
    other = "LongEval proposes guidelines for human evaluation [other, p. 2]."
    assert supported([good, other], "own", page_text) == (2, 2)
    assert supported([wrong_number, wrong_page, uncited, invented], "own", page_text) == (0, 4)


def test_a_not_found_answer_counts_as_one_sentence_supported_when_its_quote_is_on_the_page():
    quote = 'Not found in the paper; its closest passage says: "S2ORC holds 81.1M papers, of which 8.1M have ' \
            'full text parsed by GROBID into paragraphs and sections." [p. 5].'
    assert supported([quote], "own", page_text) == (1, 1)
    assert supported([quote.replace("81.1M", "91.1M")], "own", page_text) == (0, 1)


def test_sentences_keep_their_citation_and_questions_repeat_by_their_words():
    assert split("One point [p. 2]. Two p. 3 points [pp. 3-4].") == ["One point [p. 2].", "Two p. 3 points [pp. 3-4]."]
    assert repeated(["What corpus statistics does S2ORC report?", "How is GROBID used?",
                     "Which corpus statistics does S2ORC report in Table 3?"]) == 1


def test_a_one_word_question_is_repeated_only_by_the_same_word():
    assert repeated(['Can you say more about "information"?',
                     "What types of information do language models help users read?",
                     "Can you say more about information?"]) == 1


def test_a_quote_matches_its_page_through_ligatures_and_footnote_marks():
    """The page text PyMuPDF gives keeps the "ﬁ" ligature and a footnote's number inside a sentence; the
    quote (taken from the ingested passage) has neither."""
    page = "we use the SpaCy library 27 en_core_web_sm model. narrations of over \ufb01ve hundred words."

    def quoted(text):
        answer = f'Not found in the paper; its closest passage says: "{text}" [p. 1].'
        return supported([answer], "x", lambda _pid, _page: page)

    assert quoted("we use the SpaCy library en_core_web_sm model.") == (1, 1)
    assert quoted("narrations of over five hundred words.") == (1, 1)
    assert quoted("narrations of over six hundred words.") == (0, 1)
    assert quoted("the SpaCy library 28 en_core_web_sm model.") == (0, 1)


def test_questions_and_answer_sentences_copying_a_prompt_template_are_counted():
    from paperdesk.bench.discuss_papers import leaked
    from paperdesk.core.prompt_leaks import prompt_runs

    copied = " ".join(sorted(prompt_runs())[0]).capitalize()
    questions = ["What does the paper measure?", f"{copied}?"]
    answers = [f"The paper measures recall [p. 3]. {copied} [p. 4].", "Not found in this paper."]
    assert leaked(questions, answers) == 2
    assert leaked(questions[:1], answers[1:]) == 0
