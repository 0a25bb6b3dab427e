"""A local knowledge graph of what discussions and reading established (replaces Graphiti).

    graph = MemoryGraph.for_library(library)          # tables in the library's SQLite file
    graph.create_entities([Entity("retrieval", "term", [Observation("...", paper_id="2302.07302v1", page=3)])])
    graph.add_observations([("retrieval", ["..."])]); graph.create_relations([Relation("q1", "retrieval", "about")])
    graph.search_nodes("citation context", k=10)      # Graph(entities best first, relations touching them)
    graph.open_nodes(["retrieval"]); graph.export(); graph.recent(20)
    graph.delete_entities([...]); graph.delete_observations([(name, [text])]); graph.delete_relations([...])
"""

from paperdesk.core.memory.graph import MemoryGraph
from paperdesk.core.memory.types import Entity, Graph, MemoryGraphError, Observation, Relation

__all__ = ["Entity", "Graph", "MemoryGraph", "MemoryGraphError", "Observation", "Relation"]
