"""The Memory screen (F10) lists a paper node by the paper's title, not by its id; terms and questions by their
words. No model runs: the graph is written the way a discussion writes it."""

import pytest

from conftest import PAPERS
from paperdesk.core.memory.types import Entity, Observation, Relation
from tui_helpers import settle

pytestmark = pytest.mark.slow  # the real embedding model opens the library and searches the graph


async def test_memory_nodes_are_listed_by_title(workbench, library):
    paper = library.add_pdf(PAPERS / "2304.02623v1.pdf").paper
    other = "2302.07302v1"  # cited in a discussion, never added: only the title a discussion noted
    app = workbench(model=False)
    async with app.run_test(size=(160, 48)) as pilot:
        await settle(pilot)
        app.desk.memory.create_entities([
            Entity(paper.id, "paper", [Observation("a title noted long ago", paper_id=paper.id)]),
            Entity(other, "paper", [Observation("CiteSee: Augmenting Citations", paper_id=other)]),
            Entity("expository writing", "term", [Observation("Writing that explains.", paper_id=paper.id, page=1)]),
        ])
        app.desk.memory.create_relations([Relation("expository writing", paper.id, "appears in")])
        await pilot.press("f10")
        screen = app.screen
        await settle(pilot, until=lambda: screen.graph is not None and len(screen.graph.entities) == 3)
        nodes = screen.query_one("#memory-nodes")
        listed = [str(nodes.get_option_at_index(i).prompt) for i in range(nodes.option_count)]
        assert f"{paper.title}  (paper {paper.id}, 1)" in listed  # the library's title
        assert f"CiteSee: Augmenting Citations  (paper {other}, 1)" in listed
        assert "expository writing  (term, 1)" in listed
        assert not any(line.startswith((paper.id, other)) for line in listed)
        term = next(i for i, e in enumerate(screen.graph.entities) if e.type == "term")
        screen.open_node(screen.graph.entities[term])
        await pilot.pause(0.1)
        relations = str(screen.query_one("#memory-relations").render())
        assert f"expository writing --appears in--> {paper.title}" in relations
