"""The memory graph as one more source for sem-search and research, on a real library.

Real SQLite, tantivy and MiniLM; the CiteSee PDF. A memory observation names a paper and a page;
recall turns it into that page's passage, so answers cite the paper and page (never "memory" alone)
and say which memory led there.
"""

from __future__ import annotations

import pytest

from paperdesk.core.agents import answer as answers
from paperdesk.core.memory import Entity, MemoryGraph, Observation
from paperdesk.core.memory.recall import recall
from paperdesk.core.research.tools import ToolContext, library_search

QUESTION = "how do readers keep track of citations they already know?"


@pytest.fixture
def setup(library, citesee_pdf):
    paper = library.add_pdf(citesee_pdf).paper
    graph = MemoryGraph.for_library(library)
    yield library, graph, paper
    graph.close()


def far_page_hit(library, paper_id):
    """A passage about the question on another page than the best one: what memory should bring back."""
    hits = library.search(QUESTION, k=20)
    top = hits[0]
    return top, next(h for h in hits[1:] if h.paper_id == paper_id and h.page_start != top.page_start
                     and (h.vector_score or 0) >= 0.3)


def test_an_observation_brings_back_its_own_page_cited_as_the_paper(setup):
    library, graph, paper = setup
    top, far = far_page_hit(library, paper.id)
    graph.create_entities([Entity("known citations", "term", [
        Observation("Readers keep track of citations they already know while reading.", paper_id=paper.id,
                    page=far.page_start)])])

    hits = answers.retrieve(library, QUESTION, k=1, memory=graph, recall_k=2)
    # search's own hit first (re-ranked for the question among search's candidates), then what memory recalls
    assert hits[0].chunk_id in {h.chunk_id for h in library.search(QUESTION, k=15)} and not hits[0].via
    recalled = [h for h in hits if h.via]
    assert recalled, [h.to_json() for h in hits]
    assert recalled[0].paper_id == paper.id and recalled[0].page_start <= far.page_start <= recalled[0].page_end
    assert recalled[0].via == "memory: term 'known citations'"
    assert recalled[0].to_json()["via"] == recalled[0].via
    assert len({h.chunk_id for h in hits}) == len(hits)  # never the same passage twice

    assert answers.retrieve(library, QUESTION, k=1, memory=graph, recall_k=0) == hits[:1]  # memory.recall = 0: off
    assert answers.retrieve(library, QUESTION, k=1) == hits[:1]


def test_nothing_is_recalled_without_a_page_for_another_library_or_for_an_unrelated_question(setup):
    library, graph, paper = setup
    graph.create_entities([
        Entity("citation habits", "term", [Observation("Readers keep track of citations they already know.")]),
        Entity("gone paper", "paper", [Observation("Readers track known citations.", paper_id="9999.99999", page=2)]),
        Entity("glacier ablation", "term", [Observation("Ice lost at the tongue of a glacier.", paper_id=paper.id,
                                                        page=1)]),
    ])
    assert recall(library, graph, QUESTION) == []  # no page, a paper not in the library
    assert recall(library, graph, "how fast do glaciers lose ice in summer?") == []  # page 1 is not about it
    assert recall(library, None, QUESTION) == [] and recall(library, graph, "  ") == []


def test_a_discussion_turn_is_cited_as_the_page_it_answered_from(setup):
    library, graph, paper = setup
    _, far = far_page_hit(library, paper.id)
    graph.create_entities([Entity("What do readers do with citations they know?", "question")])
    graph.add_observations([("What do readers do with citations they know?", [Observation(
        "Answered in discussion 3, turn 2: readers keep track of known citations.", paper_id=paper.id,
        page=far.page_start, discussion_id=3, turn=2)])])
    hit = recall(library, graph, QUESTION, k=1)[0]
    assert hit.via == "memory: discussion 3 turn 2" and hit.paper_id == paper.id


def test_research_searches_add_what_memory_recalls(setup, settings):
    library, graph, paper = setup
    _, far = far_page_hit(library, paper.id)
    graph.create_entities([Entity("known citations", "term", [
        Observation("Readers keep track of citations they already know.", paper_id=paper.id, page=far.page_start)])])
    plain = library_search(ToolContext(library, None, settings, k=1), {"query": QUESTION}, {})
    with_memory = library_search(ToolContext(library, None, settings, k=1, memory=graph, recall_k=2),
                                 {"query": QUESTION}, {})
    assert [p.get("via") for p in plain["passages"]] == [None]
    via = [p for p in with_memory["passages"] if p.get("via")]
    assert via and via[0]["paper_id"] == paper.id and via[0]["text"]


@pytest.mark.slow
def test_sem_search_on_the_desk_lists_the_recalled_page_among_its_sources(tmp_home, arxiv, embedder, local_backend,
                                                                          citesee_pdf):
    from paperdesk.core.desk.desk import Desk
    from settings_for import SHORT_OUTPUTS, settings_for

    desk = Desk(settings_for(tmp_home, arxiv.api_url, **SHORT_OUTPUTS, PAPERDESK_ANSWER_K="1"),
                backend=local_backend, embedder=embedder)
    try:
        paper = desk.library.add_pdf(citesee_pdf).paper
        _, far = far_page_hit(desk.library, paper.id)
        desk.memory.create_entities([Entity("known citations", "term", [
            Observation("Readers keep track of citations they already know.", paper_id=paper.id,
                        page=far.page_start)])])
        outcome = desk.run(f"sem-search {QUESTION}")
        assert outcome.ok, outcome
        sources = desk.draft_view().sources
        recalled = [s for s in sources if s.get("via")]
        assert recalled and recalled[0]["paper_id"] == paper.id and recalled[0]["via"].startswith("memory: term")
        from paperdesk.text_views import render_sources

        assert "(memory: term 'known citations')" in render_sources(sources)
    finally:
        desk.close()
