"""Keyword index, vector index and fusion, each on its own."""

from pathlib import Path

import numpy as np

from paperdesk.core.search import fusion
from paperdesk.core.search.embedder import DIM
from paperdesk.core.search.keyword import KeywordDoc, KeywordIndex, query_terms
from paperdesk.core.search.vectors import VectorIndex


def _docs():
    return {
        "a": [
            KeywordDoc(1, "a", "Citation context", "1 Introduction", "Readers use citations to navigate papers."),
            KeywordDoc(2, "a", "Citation context", "3 Method", "We embed sentences with a transformer."),
        ],
        "b": [KeywordDoc(3, "b", "Legal summaries", "Abstract", "Summaries of civil rights lawsuits.")],
    }


def test_query_terms_survive_parser_syntax():
    assert query_terms('title:(AND "OR" what?) -x') == ["title", "and", "or", "what", "x"]


def test_keyword_search_stems_filters_and_removes(tmp_path: Path):
    index = KeywordIndex(tmp_path / "kw")
    index.replace_papers(_docs())
    assert index.num_docs() == 3
    hits = index.search("citing citation", 10)  # stemming joins citing/citations
    assert hits[0][0] == 1
    assert [cid for cid, _ in index.search("summary", 10, papers=["a"])] == []
    assert [cid for cid, _ in index.search("summary", 10, papers=["b"])] == [3]
    assert index.search('weird: "(AND', 5) == []  # no crash, no match
    assert "**" in index.snippets("citations navigate", [1])[1]
    index.replace_papers({}, remove=["a"])
    assert index.num_docs() == 1 and index.search("citation", 5) == []


def test_keyword_index_reopens_and_replaces_idempotently(tmp_path: Path):
    index = KeywordIndex(tmp_path / "kw")
    index.replace_papers(_docs())
    index.replace_papers({"a": _docs()["a"]})  # same paper again: replaced, not doubled
    again = KeywordIndex(tmp_path / "kw")
    assert again.num_docs() == 3


def test_vector_search_top_k_filter_and_cache(tmp_path: Path):
    rng = np.random.default_rng(0)
    matrix = rng.standard_normal((50, DIM)).astype(np.float32)
    matrix /= np.linalg.norm(matrix, axis=1, keepdims=True)
    index = VectorIndex(tmp_path)
    index.set_all(range(100, 150), matrix)
    hits = index.search(matrix[7], 5)
    assert hits[0][0] == 107 and abs(hits[0][1] - 1.0) < 1e-5
    assert [s for _, s in hits] == sorted((s for _, s in hits), reverse=True)
    assert index.search(matrix[7], 3, allowed=np.array([120, 121]))[0][0] in (120, 121)
    index.replace([107], matrix[8:9], remove_ids=[100])
    assert len(index) == 49
    index.save_cache(4)
    fresh = VectorIndex(tmp_path)
    assert not fresh.load_cache(5)  # stale generation
    assert fresh.load_cache(4) and len(fresh) == 49
    (tmp_path / "vectors.npy").write_bytes(b"garbage")
    assert not VectorIndex(tmp_path).load_cache(4)


def test_rrf_and_convex_fusion():
    kw = [(1, 10.0), (2, 5.0), (3, 1.0)]
    vec = [(3, 0.9), (1, 0.8), (4, 0.1)]
    rrf = dict(fusion.rrf([kw, vec], k=60))
    assert rrf[1] > rrf[3] > rrf[2] and rrf[1] > rrf[4]
    convex = fusion.convex(kw, vec, alpha=0.5)
    assert convex[0][0] == 1
    assert dict(fusion.convex(kw, vec, alpha=0.0))[4] == 0.0
    assert fusion.min_max([(1, 2.0), (2, 2.0)]) == {1: 1.0, 2: 1.0}


def test_snippet_bold_stays_on_the_match_after_multibyte_characters(tmp_path: Path):
    index = KeywordIndex(tmp_path / "kw")
    text = "Authors’ views — “curly” quotes and café accents come first; designing for expository writing matters."
    index.replace_papers({"a": [KeywordDoc(1, "a", "T", "", text)]})
    snippet = index.snippets("expository writing", [1])[1]
    assert "**expository** **writing**" in snippet, snippet
    assert "Authors’ views — “curly”" in snippet
