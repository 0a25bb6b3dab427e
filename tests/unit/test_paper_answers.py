"""A research sub-answer from several papers: one part per fitting paper, joined with each [n] still its passage."""

from types import SimpleNamespace

import numpy as np

from paperdesk.core.library.library import Hit
from paperdesk.core.research.paper_answers import SPREAD_COSINE, fitting_papers, join


def hit(paper: str, chunk: int) -> Hit:
    return Hit(paper, f"Title {paper}", chunk, 1, 1, "", "text", 1.0, None, None)


def test_papers_nearly_as_close_as_the_closest_fit_and_a_far_one_does_not():
    hits = [hit("a", 1), hit("a", 2), hit("b", 3), hit("c", 4)]
    sims = np.array([0.8, 0.78, 0.8 - SPREAD_COSINE / 2, 0.8 - 2 * SPREAD_COSINE])
    assert fitting_papers(hits, sims) == ["a", "b"]


def test_joined_parts_shift_their_numbers_and_name_a_named_paper_with_nothing_supported():
    a = SimpleNamespace(text="A fits by EM [1]. It iterates [2].", not_found=False,
                        citations=[{"n": 1, "chunk_id": 1}, {"n": 2, "chunk_id": 2}])
    b = SimpleNamespace(text="B uses maximum likelihood [2].", not_found=False, citations=[{"n": 2, "chunk_id": 4}])
    c = SimpleNamespace(text="Not found in your papers", not_found=True, citations=[])
    text, citations, hits, empty = join([([hit("a", 1), hit("a", 2)], a), ([hit("b", 3), hit("b", 4)], b),
                                         ([hit("c", 5)], c)], named={"c"})
    assert text == "A fits by EM [1]. It iterates [2]. B uses maximum likelihood [4]."
    assert [(c["n"], c["chunk_id"]) for c in citations] == [(1, 1), (2, 2), (4, 4)]
    assert [h.chunk_id for h in hits] == [1, 2, 3, 4, 5] and empty == ["Title c"]


def test_a_part_drops_a_sentence_that_names_what_only_another_papers_passages_hold():
    from paperdesk.core.research.paper_answers import drop_foreign, foreign_terms

    question = "How do the alpha and beta packages fit their models?"
    other = "The beta package uses likelihood; beta fits, beta tests, beta plots and beta prints. It fits models."
    terms = foreign_terms(question, ["The alpha package fits models by EM."], [other])
    assert terms == {"beta"}  # "package" is in both, "fit" once in the other paper: not names
    text, dropped = drop_foreign("Alpha fits models by EM [1]. The beta package also uses EM [1].", terms)
    assert text == "Alpha fits models by EM [1]." and dropped == ["The beta package also uses EM [1]."]


def test_a_part_asks_the_question_without_the_other_papers_names():
    from paperdesk.core.research.paper_answers import scoped

    h = hit("b", 1)
    assert scoped("How do the alpha and beta packages fit models?", h, {"alpha"}) == \
        "How do the beta packages fit models? (In Title b.)"
    assert scoped("How do alpha, beta and gamma fit models?", h, {"alpha", "gamma"}) == \
        "How do beta fit models? (In Title b.)"
