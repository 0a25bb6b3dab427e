"""Chunk tails in the vector index: scoring, filters, edits, the cache and the stored blob layout."""

from pathlib import Path

import numpy as np
import pytest

from paperdesk.core.search.embedder import DIM
from paperdesk.core.search.vectors import StoredVectors, VectorIndex


def _unit(rows: np.ndarray) -> np.ndarray:
    return (rows / np.linalg.norm(rows, axis=-1, keepdims=True)).astype(np.float32)


@pytest.fixture
def corpus():
    """60 chunks with 0-3 tails each, tail rows shuffled, and the expected score of each chunk for a query."""
    rng = np.random.default_rng(3)
    ids = rng.permutation(1000)[:60]
    opening = _unit(rng.standard_normal((60, DIM)))
    tails = {int(i): _unit(rng.standard_normal((int(rng.integers(0, 4)), DIM))) for i in ids}
    tail_ids = np.array([i for i in ids for _ in range(len(tails[int(i)]))])
    tail_rows = np.concatenate([tails[int(i)] for i in ids])
    shuffle = rng.permutation(len(tail_ids))
    query = _unit(rng.standard_normal(DIM))

    def expected(cid: int) -> float:
        first = float(opening[list(ids).index(cid)] @ query)
        rest = tails[cid]
        return first if not len(rest) else (first + max(first, float((rest @ query).max()))) / 2

    return ids, opening, tail_ids[shuffle], tail_rows[shuffle], query, expected


def test_a_chunk_scores_the_mean_of_its_opening_and_its_best_vector(tmp_path: Path, corpus):
    ids, opening, tail_ids, tail_rows, query, expected = corpus
    index = VectorIndex(tmp_path)
    index.set_all(ids, opening, tail_ids, tail_rows)
    want = sorted(((int(i), expected(int(i))) for i in ids), key=lambda pair: -pair[1])
    hits = index.search(query, 15)
    assert [cid for cid, _ in hits] == [cid for cid, _ in want[:15]]
    assert np.allclose([s for _, s in hits], [s for _, s in want[:15]], atol=1e-5)
    assert any(len(tail_ids[tail_ids == cid]) for cid, _ in hits)  # tails took part

    allowed = ids[::4]
    subset = [pair for pair in want if pair[0] in set(allowed.tolist())][:5]
    filtered = index.search(query, 5, allowed=allowed)
    assert [cid for cid, _ in filtered] == [cid for cid, _ in subset]
    assert np.allclose([s for _, s in filtered], [s for _, s in subset], atol=1e-5)

    scores = index.scores_of(query, [int(ids[2]), 5000, int(ids[9])])
    assert np.isnan(scores[1])
    assert scores[0] == pytest.approx(expected(int(ids[2])), abs=1e-5)
    assert scores[2] == pytest.approx(expected(int(ids[9])), abs=1e-5)


def test_a_chunk_without_tails_scores_its_plain_cosine(tmp_path: Path):
    rows = _unit(np.random.default_rng(0).standard_normal((5, DIM)))
    index = VectorIndex(tmp_path)
    index.set_all(range(5), rows)
    (cid, score), = index.search(rows[3], 1)
    assert cid == 3 and score == pytest.approx(1.0, abs=1e-5)
    assert index.scores_of(rows[3], [3])[0] == pytest.approx(1.0, abs=1e-5)


def test_edits_keep_tails_with_their_chunks_and_the_cache_round_trips(tmp_path: Path, corpus):
    ids, opening, tail_ids, tail_rows, query, _ = corpus
    index = VectorIndex(tmp_path)
    index.set_all(ids, opening, tail_ids, tail_rows)
    gone, redone = int(ids[0]), int(ids[1])
    new_tails = _unit(np.random.default_rng(9).standard_normal((2, DIM)))
    index.replace([redone], opening[1:2], remove_ids=[gone], add_tail_ids=[redone, redone], add_tails=new_tails)
    assert gone not in index.ids and gone not in index.tail_ids
    assert np.array_equal(index.tails[index.tail_ids == redone], new_tails)  # the old tails went with the old row
    assert len(index.search(query, 100)) == len(ids) - 1

    index.save_cache(7)
    fresh = VectorIndex(tmp_path)
    assert fresh.load_cache(7)
    assert fresh.search(query, 20) == index.search(query, 20)
    info = tmp_path / "vectors.json"
    info.write_text(info.read_text().replace('"layout": 2', '"layout": 1'))
    assert not VectorIndex(tmp_path).load_cache(7)  # a cache from before tails is rebuilt from the store


def test_stored_blobs_hold_the_opening_vector_then_the_tails():
    rng = np.random.default_rng(1)
    one, three = _unit(rng.standard_normal((1, DIM))), _unit(rng.standard_normal((3, DIM)))
    stored = StoredVectors.from_blobs([(4, one.tobytes()), (9, three.tobytes())])
    assert stored.ids == [4, 9] and stored.tail_ids == [9, 9]
    assert np.array_equal(stored.matrix, np.vstack([one[0], three[0]]))
    assert np.array_equal(stored.tails, three[1:])
    assert StoredVectors.from_blobs([]).matrix.shape == (0, DIM)


def test_the_store_hands_consumers_the_opening_vector(tmp_path: Path):
    from paperdesk.core.db.store import Chunk, Paper, Store

    store = Store(tmp_path / "s.sqlite")
    vectors = _unit(np.random.default_rng(2).standard_normal((3, DIM)))
    store.add_paper(Paper(id="p1", title="T"), ["page"], [Chunk(0, "p1", 0, 1, 1, "", "text")], [vectors.tobytes()])
    (cid, blob), = store.embeddings_of("p1")
    assert len(blob) == 3 * 4 * DIM
    assert np.array_equal(store.embeddings_by_ids([cid])[cid], vectors[0])


def test_doctor_finds_tails_of_chunks_the_cache_does_not_index(tmp_path: Path, corpus):
    import json

    from paperdesk.core.library.index_check import _tail_problems

    ids, opening, tail_ids, tail_rows, _, _ = corpus
    index = VectorIndex(tmp_path)
    index.set_all(ids, opening, tail_ids, tail_rows)
    index.save_cache(1)
    info = json.loads((tmp_path / "vectors.json").read_text())
    chunk_ids = {int(i) for i in ids}
    assert _tail_problems(tmp_path, info, chunk_ids) == []
    orphan = int(tail_ids[0])
    assert _tail_problems(tmp_path, info, chunk_ids - {orphan}) == [
        "the vector cache holds tail vectors of 1 chunk it does not index"]
    (tmp_path / "vectors.tails.npy").write_bytes(b"broken")
    assert "cannot be read" in _tail_problems(tmp_path, info, chunk_ids)[0]
