"""A discussion turn's literature is what its cited passages cite where they support the answer, resolved
against the paper's own reference list; its annotation quotes the teacher's own supported sentence.

Real passages and reference lists of the fixture PDFs as ingest parses them (CiteSee: numbered "[33]";
PaperMage: author-year "(Lo et al., 2020; ...)"). No model: the turns are what a teacher stores.
"""

from __future__ import annotations

from functools import lru_cache
from types import SimpleNamespace

import pytest

from conftest import PAPERS
from paperdesk.core.discussion.literature import References, in_text_citations, turn_works
from paperdesk.core.discussion.observer import Observer, render_markdown
from paperdesk.core.discussion.outline import Outline
from paperdesk.core.discussion.types import Turn
from paperdesk.core.ingest.pdf import parse_pdf

CITESEE = "2302.07302v1"
CITESEE_TITLE = "CiteSee: Augmenting Citations in Scientific Papers with Persistent and Personalized Historical Context"


@lru_cache(maxsize=None)
def parsed(name):
    return parse_pdf(PAPERS / f"{name}.pdf")


class PaperStore:
    """The two store reads References.of makes, over a parsed fixture PDF; the library holds CiteSee."""

    def __init__(self, name: str) -> None:
        self.paper = parsed(name)

    def chunks_of(self, paper_id):
        return self.paper.chunks

    def list_papers(self):
        return [SimpleNamespace(id=CITESEE, title=CITESEE_TITLE)]


def passage(name: str, holding: str) -> str:
    return next(c.text for c in parsed(name).chunks if holding in c.text and c.section != "References")


def test_numbered_markers_resolve_to_the_reference_list_entries():
    refs = References.of(PaperStore(CITESEE), "other")
    assert len(refs.numbered) >= 60
    assert refs.resolve("[33]") == ("[33] King et al. (2009): Scholarly journal information-seeking and reading "
                                    "patterns of faculty at five US universities")
    assert refs.resolve("[999]") == "[999]"  # not in the list: as written


def test_author_year_markers_resolve_and_a_library_paper_is_named():
    refs = References.of(PaperStore("papermage"), "papermage")
    assert refs.resolve("Lo et al., 2020") == "Lo et al., 2020: S2ORC: The semantic scholar open research corpus"
    assert refs.resolve("Chang et al., 2023").endswith(f"(library paper {CITESEE})")
    assert refs.resolve("Nobody et al., 2020") == "Nobody et al., 2020"


def test_in_text_citations_of_both_styles():
    text = ("chaining (summarized in [44]) and [23, 33, 58] or [3-5]; Smith et al. (2020) and "
            "(Lo et al., 2020; Wang et al., 2020); see Table 2 (2020).")
    assert in_text_citations(text) == ["[44]", "[23]", "[33]", "[58]", "[3]", "[4]", "[5]", "Lo et al., 2020",
                                       "Wang et al., 2020", "Smith et al., 2020"]


def test_code_indices_and_numbers_in_an_author_year_paper_are_not_citations():
    assert in_text_citations("for line in sentence.lines[0]: f(x)[2] and [0] but [7]") == ["[7]"]
    refs = References.of(PaperStore("papermage"), "papermage")
    text = "1 >>> sentences = Layer(entities =[ 2 Entity (...) ]) as in [2] (Lo et al., 2020)."
    assert turn_works([text], ["sentences are a Layer of Entity objects"], refs) == [
        "Lo et al., 2020: S2ORC: The semantic scholar open research corpus"]


def test_a_turn_cites_the_works_of_the_passage_where_it_supports_the_answer():
    refs = References.of(PaperStore(CITESEE), CITESEE)
    text = passage(CITESEE, "one in five (21%)")
    supported = ["One survey study estimated that inline citations accounted for around one in five (21%) of "
                 "paper discoveries during research [p. 1]."]
    works = turn_works([text], supported, refs)
    assert [w.split()[0] for w in works] == ["[44]", "[33]"]  # the supporting sentence and the one before it
    assert works[1] == ("[33] King et al. (2009): Scholarly journal information-seeking and reading patterns of "
                        "faculty at five US universities")
    assert {"[23]", "[58]"} <= set(in_text_citations(text))  # cited in the same passage, away from the support


def test_author_year_passage_works():
    refs = References.of(PaperStore("papermage"), "papermage")
    text = passage("papermage", "(Lo et al., 2020; Wang et al., 2020)")
    works = turn_works([text], ["Extracting clean, properly structured scientific text from PDF documents is a "
                                "critical first step in pretraining language models of science [p. 1]."], refs)
    assert works[:2] == ["Lo et al., 2020: S2ORC: The semantic scholar open research corpus",
                         "Wang et al., 2020: CORD-19: The COVID-19 open research dataset"]


def _turn(n, question, answer, supported, works=(), literature=(), not_found=False):
    return Turn(n, {"kind": "section", "target": "1 Introduction", "section": "1 Introduction"}, question, answer,
                [], ["1 Introduction"], [1], list(literature), 1.0, True, supported=supported,
                not_found=not_found, works=list(works))


@pytest.fixture(scope="module")
def observer(embedder):
    return Observer(Outline(CITESEE, CITESEE_TITLE, [], []), embedder.encode)


def test_the_summary_quotes_the_teachers_own_supported_sentence_and_lists_the_cited_works(observer):
    own = ("One survey study estimated that inline citations accounted for around one in five (21%) of paper "
           "discoveries during research [p. 1].")
    other = "Paper discovery tools help scholars find relevant citations during research [local-1a2b, p. 3]."
    works = ["[33] King et al. (2009): Scholarly journal information-seeking and reading patterns of faculty at "
             "five US universities"]
    turn = _turn(1, "Do paper discovery tools help scholars find relevant citations?", f"{other} {own}",
                 [other, own], works, ["local-1a2b"])
    entry = observer.summary([turn])[0]
    assert entry["answer"] == own  # the discussed paper's supported sentence, not another paper's passage
    assert entry["literature"] == ["local-1a2b", works[0]]
    markdown = render_markdown("CiteSee", CITESEE, [entry])
    assert f"- Literature: local-1a2b; {works[0]}" in markdown


def test_a_not_found_turn_is_summed_up_whole_never_by_a_piece_of_its_quote(observer):
    answer = ('Not found in the paper; its closest passage says: "Inline citations are a key resource for '
              'discovering papers. The behavior of following inline citations has been observed [44]." [p. 1].')
    turn = _turn(2, "How many citations does a typical paper have?", answer, [], not_found=True)
    assert observer.summary([turn])[0]["answer"] == answer


def test_a_cited_work_the_library_holds_is_among_the_discussions_papers():
    from paperdesk.core.discussion.types import DiscussionResult

    refs = References.of(PaperStore("papermage"), "papermage")
    work = refs.resolve("Chang et al., 2023")
    turn = _turn(1, "What reading tools does PaperMage build on?", "They build on reading tools [p. 1].",
                 ["They build on reading tools [p. 1]."], [work, "Lo et al., 2020: S2ORC"])
    result = DiscussionResult(1, "papermage", "PaperMage", "finished", 1, 1, [turn], [], {})
    assert result.cited_papers == ["papermage", CITESEE]
