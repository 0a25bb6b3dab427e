"""The memory graph's operations on a real SQLite file with the real MiniLM embedder."""

from __future__ import annotations

import sqlite3

import pytest

from paperdesk.core.memory import Entity, MemoryGraph, MemoryGraphError, Observation, Relation
from paperdesk.core.memory.graph import fts_query
from paperdesk.core.db.schema import schema_version


@pytest.fixture
def graph(tmp_path, embedder):
    g = MemoryGraph(tmp_path / "library.sqlite", embedder)
    yield g
    g.close()


def _seed(graph: MemoryGraph) -> None:
    graph.create_entities([
        Entity("citation recommendation", "term",
               [Observation("Suggesting papers to cite for a given passage.", paper_id="2302.07302v1", page=2)]),
        Entity("glacier ablation", "term", [Observation("Ice lost at the tongue of a glacier in summer.")]),
        Entity("2302.07302v1", "paper", ["CiteSee: augmenting citations in scientific papers"]),
        Entity("Joseph Chee Chang", "person", ["An author of CiteSee."]),
    ])


def test_tables_are_migrated_as_their_own_owner(graph, tmp_path):
    conn = sqlite3.connect(tmp_path / "library.sqlite")
    assert schema_version(conn, "memory") == 1
    assert conn.execute("SELECT count(*) FROM memory_entities").fetchone()[0] == 0


def test_create_skips_existing_names_case_insensitively(graph):
    _seed(graph)
    again = graph.create_entities([Entity("Citation Recommendation", "term"), Entity("new one", "method")])
    assert [e.name for e in again] == ["new one"]
    assert graph.count() == 5


def test_unknown_type_and_unknown_entity_are_clear_errors(graph):
    with pytest.raises(MemoryGraphError, match="not one of paper, term"):
        graph.create_entities([Entity("x", "planet")])
    with pytest.raises(MemoryGraphError, match="no entity named 'ghost'"):
        graph.add_observations([("ghost", ["boo"])])
    _seed(graph)
    with pytest.raises(MemoryGraphError, match="create it before relating"):
        graph.create_relations([Relation("2302.07302v1", "ghost", "mentions")])


def test_observations_keep_their_source_and_are_deduplicated(graph):
    _seed(graph)
    added = graph.add_observations([("citation recommendation", [
        Observation("CiteSee highlights cited papers the reader already knows.", paper_id="2302.07302v1", page=4),
        "Suggesting papers to cite for a given passage.",  # already there
    ])])
    assert added == {"citation recommendation": ["CiteSee highlights cited papers the reader already knows."]}
    node = graph.open_nodes(["citation recommendation"]).entities[0]
    assert [o.page for o in node.observations] == [2, 4]
    assert node.observations[1].source == "2302.07302v1, p. 4"


def test_relations_open_nodes_and_deletes(graph):
    _seed(graph)
    made = graph.create_relations([Relation("2302.07302v1", "citation recommendation", "mentions"),
                                   {"from": "Joseph Chee Chang", "to": "2302.07302v1", "relationType": "wrote"}])
    assert len(made) == 2
    assert graph.create_relations([Relation("2302.07302v1", "citation recommendation", "mentions")]) == []
    opened = graph.open_nodes(["2302.07302v1"])
    assert {r.type for r in opened.relations} == {"mentions", "wrote"}
    assert graph.delete_relations([Relation("Joseph Chee Chang", "2302.07302v1", "wrote")]) == 1
    assert [r.type for r in graph.open_nodes(["2302.07302v1"]).relations] == ["mentions"]
    assert graph.delete_observations([("glacier ablation", ["Ice lost at the tongue of a glacier in summer."])]) == 1
    assert graph.open_nodes(["glacier ablation"]).entities[0].observations == []
    assert graph.delete_entities(["citation recommendation", "nobody"]) == 1
    assert graph.open_nodes(["2302.07302v1"]).relations == []  # cascaded
    assert "citation recommendation" not in [e.name for e in graph.search_nodes("citation recommendation").entities]


def test_search_is_hybrid(graph):
    _seed(graph)
    # keyword: an exact word from an observation, and a prefix while typing
    assert graph.search_nodes("tongue").entities[0].name == "glacier ablation"
    assert "2302.07302v1" in [e.name for e in graph.search_nodes("augmen", k=2).entities]
    # meaning only: no shared word with "glacier ablation" or its observation
    assert graph.search_nodes("melting ice sheets").entities[0].name == "glacier ablation"
    hits = graph.search_nodes("which papers should I cite", k=2).entities
    assert hits[0].name == "citation recommendation" and hits[0].score is not None


def test_search_sees_writes_from_another_connection(graph, tmp_path, embedder):
    graph.search_nodes("anything")  # loads the vector cache
    other = MemoryGraph(tmp_path / "library.sqlite", embedder)
    other.create_entities([Entity("dropout", "method", ["Randomly zeroes activations while training."])])
    other.close()
    assert graph.search_nodes("regularisation by zeroing activations").entities[0].name == "dropout"


def test_empty_query_lists_newest_first_and_export_has_everything(graph):
    _seed(graph)
    graph.add_observations([("glacier ablation", ["Measured since 2000."])])
    assert graph.search_nodes("  ").entities[0].name == "glacier ablation"
    graph.create_relations([Relation("Joseph Chee Chang", "2302.07302v1", "wrote")])
    data = graph.export().to_json()
    assert len(data["entities"]) == 4 and data["relations"] == [
        {"from": "Joseph Chee Chang", "to": "2302.07302v1", "type": "wrote"}]


def test_fts_query_never_breaks_on_syntax():
    assert fts_query('AND "OR" NEAR(') == '"and" OR "or" OR "near"*'
    assert fts_query("?!") is None
