"""Re-ranking evidence for a question: rare words weigh more, the kind of fact asked for is found, and a
passage's window keeps the sentences that answer (pure functions; no library, no model)."""

from __future__ import annotations

import numpy as np

from paperdesk.core.agents import evidence


def test_a_question_names_the_kind_of_fact_a_sentence_must_state() -> None:
    paid = evidence.answer_marks("How much were the field deployment participants paid?")
    assert paid is not None and paid.search("each was compensated $35 USD") and not paid.search("six participants")
    count = evidence.answer_marks("How many participants took part in the lab study?")
    assert count is not None
    assert count.search("We recruited a total of ten participants") and count.search("participants (n=12)")
    assert not count.search("we walked through CiteSee in 10 minutes")
    length = evidence.answer_marks("How long should one model generation be?")
    assert length is not None and length.search("relatively short, e.g., one or two sentences")
    share = evidence.answer_marks("What share of discoveries came from inline citations?")
    assert share is not None and share.search("around 21% of paper discovery") and share.search("2.7x more")
    assert evidence.answer_marks("What problem does the paper address?") is None


def test_rare_question_words_weigh_more_and_acronyms_stand_for_their_phrase() -> None:
    sentences = ["The paper describes papermage.", "papermage is a toolkit.", "papermage parses PDFs.",
                 "SentencePredictor wraps PySBD.", "LLMs are limited in reasoning."]
    weights = evidence.word_weights("Which tools does papermage's SentencePredictor wrap?", sentences)
    assert weights["sentencepredictor"] > weights["papermage"]
    assert evidence.coverage(weights, sentences[3]) > evidence.coverage(weights, sentences[1])
    limits = evidence.word_weights("What limitations of large language models do the authors see?", sentences)
    assert {"llms", "limit"} <= set(limits)  # "limitations" and "limited" share a stem
    assert evidence.stem("summaries") == evidence.stem("summary")


def test_a_window_keeps_a_strong_second_sentence_and_the_best_one_of_the_kind_asked_for() -> None:
    sentences = [f"Filler sentence number {w} says little here." for w in "abcdefgh"]
    scores = np.array([0.9, 0.1, 0.1, 0.1, 0.1, 0.8, 0.1, 0.3])
    text = evidence.window(sentences, scores, 14)
    assert sentences[0] in text and sentences[5] in text and "…" in text and sentences[3] not in text
    typed = evidence.window(sentences, scores, 14, also=7)
    assert sentences[7] in typed


def test_bulleted_items_are_sentences_of_their_own() -> None:
    got = evidence.evidence_sentences("It is broad: • Tiny summaries have 25 words. • Long ones have 650 words.")
    assert got == ["It is broad:", "Tiny summaries have 25 words.", "Long ones have 650 words."]


def test_inline_author_year_citations_do_not_make_body_text_a_reference_list() -> None:
    body = ("SentencePredictor wraps sciSpaCy (Neumann et al., 2019) and PySBD (Sadvilkar and Neumann, 2020). "
            "BoxPredictor wraps LayoutParser (Shen et al., 2021) with EfficientDet (Tan et al., 2020). ") * 2
    assert not evidence.is_boilerplate("3.2 Predictors", body)
    refs = ("[1] A. Author. 2019. A title. In Proceedings of the Conference on Things. pp. 1-9. "
            "[2] B. Author. 2020. Another. arXiv preprint arXiv:2001.0001. ") * 2
    assert evidence.is_boilerplate("", refs)


def test_a_sentence_holding_the_questions_rare_words_outranks_one_that_only_reads_alike() -> None:
    question = "Which estimator does the gadgetry package use for the Blorft coefficient?"
    sentences = ["Estimation of coefficients is a central concern in this line of work.",
                 "The gadgetry package estimates the Blorft coefficient by weighted least squares.",
                 "Several packages offer related functionality."]
    # the first reads closest in meaning, the second a quarter less close but holding every word asked about
    vectors = np.array([[1.0, 0.0], [0.75, 0.661], [0.5, 0.866]])
    qvec = np.array([1.0, 0.0])
    weights = evidence.word_weights(question, sentences)
    scores, _ = evidence._sentence_scores(question, qvec, sentences, vectors, weights)
    assert int(np.argmax(vectors @ qvec)) == 0
    assert int(np.argmax(scores)) == 1


class _Encoder:
    """A stand-in sentence encoder (a test of the scoring arithmetic, not of meaning): fixed vectors by text."""

    def __init__(self, vectors: dict[str, list[float]]) -> None:
        self.vectors, self.asked = vectors, []

    def encode(self, texts):
        self.asked += list(texts)
        return np.array([self.vectors.get(t, [0.0, 0.0, 0.0]) for t in texts])


def test_only_a_limitation_question_reads_its_sentences_for_what_a_limitation_says() -> None:
    encoder = _Encoder({})
    assert evidence.intent_vector("How many participants took part?", encoder) is None
    assert evidence.intent_vector("What problem does the paper address?", encoder) is None and encoder.asked == []
    vector = evidence.intent_vector("What drawback of the parser do the authors mention?", encoder)
    assert vector is not None and len(encoder.asked) == 1 and "limitation" in encoder.asked[0].lower()


def test_a_sentence_that_says_a_limitation_outranks_one_that_only_shares_the_questions_topic() -> None:
    question = "What limitation do the authors acknowledge about their sensor set-up?"
    sentences = ["The sensor set-up used two electrodes on each arm.",
                 "The sensor set-up had little room on the arm, so one electrode served two muscles."]
    # axis 0: the question's topic, axis 2: what a limitation says; the first sentence is nearer the question
    vectors = np.array([[0.8, 0.0, 0.0], [0.7, 0.0, 1.0]])
    qvec, intent = np.array([1.0, 0.0, 0.0]), np.array([0.0, 0.0, 1.0])
    weights = evidence.word_weights(question, sentences)
    plain, _ = evidence._sentence_scores(question, qvec, sentences, vectors, weights)
    read, _ = evidence._sentence_scores(question, qvec, sentences, vectors, weights, intent)
    assert int(np.argmax(plain)) == 0 and int(np.argmax(read)) == 1
    assert np.isclose(read.mean(), plain.mean())  # a lift for one is a loss for the other: no passage gains


def test_the_real_embedder_hears_a_limitation_that_names_none(embedder) -> None:
    """Closer in meaning to what a limitation says: a sentence that admits one in plain words, over a sentence
    of the same topic that reports a fact (all-MiniLM-L6-v2, as search embeds)."""
    vector = evidence.intent_vector("What caveat do the authors give about the survey's sample?", embedder)
    admits, reports = embedder.encode(["Only volunteers from one city answered, so the sample may not represent "
                                       "the wider population.",
                                       "The survey was answered by 412 volunteers in the spring of that year."])
    assert float(admits @ vector) > float(reports @ vector) + 0.05
