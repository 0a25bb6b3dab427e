"""`paperdesk bench memory`: memory-graph search latency with N entities (default 10,000).

Entities are named with words of a synthetic Zipf vocabulary (as in `bench
search`), each with two observations and a relation; their stored vectors are
random unit vectors, because what search_nodes does with them (one matrix
product, top candidates, fusion) does not depend on their values. Each query
runs through `MemoryGraph.search_nodes` (FTS5 BM25 + vectors + RRF + loading
the top entities, their observations and relations) next to raw sqlite3 FTS5
+ raw numpy + the same fusion and row fetches, in the same run, on the same
file. Encoding the query with the real MiniLM is timed separately and added.
"""

from __future__ import annotations

import argparse
import sqlite3
import tempfile
from pathlib import Path
from typing import Any, Callable, Sequence

import numpy as np

from paperdesk.bench.common import emit, note, percentiles_ms, timed
from paperdesk.bench.search_latency import interleaved_latency, synthetic_words
from paperdesk.core.config import Settings
from paperdesk.core.memory import Entity, MemoryGraph, Observation, Relation
from paperdesk.core.memory.graph import CANDIDATES, MIN_VECTOR, fts_query
from paperdesk.core.search.embedder import DIM, Embedder
from paperdesk.core.search.fusion import rrf

K = 10
TYPES = ("term", "method", "dataset", "question", "person", "paper")


class _GivenVectors:
    """Random unit vectors for stored entities; the query's vector looked up by its text."""

    def __init__(self, rng: np.random.Generator, queries: dict[str, np.ndarray]) -> None:
        self.rng = rng
        self.queries = queries

    def encode(self, texts: Sequence[str], **_: Any) -> np.ndarray:
        m = self.rng.standard_normal((len(texts), DIM), dtype=np.float32)
        return m / np.linalg.norm(m, axis=1, keepdims=True)

    def encode_query(self, query: str) -> np.ndarray:
        return self.queries[query]


def run(args: argparse.Namespace, settings: Settings) -> int:
    rng = np.random.default_rng(11)
    n = args.entities
    vocab = synthetic_words(rng)
    weights = 1.0 / np.arange(1, len(vocab) + 1)
    weights /= weights.sum()
    band = np.arange(50, 5000)
    queries = [" ".join(vocab[i] for i in rng.choice(band, size=rng.integers(1, 4))) for _ in range(args.queries)]
    qvecs = rng.standard_normal((len(queries), DIM), dtype=np.float32)
    qvecs /= np.linalg.norm(qvecs, axis=1, keepdims=True)
    given = _GivenVectors(rng, dict(zip(queries, qvecs)))
    with tempfile.TemporaryDirectory(prefix="paperdesk-bench-") as tmp:
        path = Path(tmp) / "library.sqlite"
        graph = MemoryGraph(path, given)  # type: ignore[arg-type]

        def build() -> None:
            for start in range(0, n, 1000):
                count = min(1000, n - start)
                picks = rng.choice(len(vocab), size=(count, 24), p=weights)
                entities = [Entity(f"{vocab[picks[i, 0]]} {vocab[picks[i, 1]]} {start + i}", TYPES[(start + i) % 6],
                                   [Observation(" ".join(vocab[j] for j in picks[i, 2:14]), paper_id="p1", page=1),
                                    " ".join(vocab[j] for j in picks[i, 14:24])]) for i in range(count)]
                graph.create_entities(entities)
                graph.create_relations([Relation(entities[i].name, entities[i - 1].name, "related to")
                                        for i in range(1, count)])
                note(f"stored {start + count}/{n} entities")

        build_s, _ = timed(build)
        conn = sqlite3.connect(path)
        rows = conn.execute("SELECT id, embedding FROM memory_entities ORDER BY id").fetchall()
        ids = np.array([r[0] for r in rows], dtype=np.int64)
        matrix = np.frombuffer(b"".join(r[1] for r in rows), dtype=np.float32).reshape(len(rows), DIM)

        def raw(i: int) -> list[tuple[str, str, list[str], list[tuple[str, str, str]]]]:
            """The same work by hand: FTS5 top candidates, numpy top candidates, RRF, fetch rows."""
            keyword = [(r[0], -r[1]) for r in conn.execute(
                "SELECT rowid, bm25(memory_fts, 3.0, 1.0) AS s FROM memory_fts WHERE memory_fts MATCH ? "
                "ORDER BY s LIMIT ?", (fts_query(queries[i]), CANDIDATES))]
            sims = np.einsum("ij,j->i", matrix, qvecs[i])
            top = np.argpartition(-sims, CANDIDATES - 1)[:CANDIDATES]
            top = top[np.argsort(-sims[top])]
            vector = [(int(ids[j]), float(sims[j])) for j in top if sims[j] >= MIN_VECTOR]
            best = [e for e, _ in rrf([keyword, vector])[:K]]
            marks = ",".join("?" * len(best))
            names = {r[0]: (r[1], r[2]) for r in conn.execute(
                f"SELECT id, name, type FROM memory_entities WHERE id IN ({marks})", best)}
            obs: dict[int, list[str]] = {}
            for e, text in conn.execute(
                    f"SELECT entity_id, text FROM memory_observations WHERE entity_id IN ({marks}) ORDER BY id", best):
                obs.setdefault(e, []).append(text)
            rel = conn.execute(f"SELECT from_id, to_id, type FROM memory_relations WHERE from_id IN ({marks}) "
                               f"OR to_id IN ({marks})", best + best).fetchall()
            return [(*names[e], obs.get(e, []), rel) for e in best if e in names]

        same = sum(1 for i in range(min(20, len(queries)))
                   if [e.name for e in graph.search_nodes(queries[i], K).entities] == [r[0] for r in raw(i)])
        fns: dict[str, Callable[[int], Any]] = {
            "search_nodes": lambda i: graph.search_nodes(queries[i], K),
            "raw_fts5_numpy": raw,
            "numpy_blas_matvec": lambda i: matrix @ qvecs[i],  # what `@` costs here, for comparison
        }
        results = {name: percentiles_ms(t) for name, t in interleaved_latency(fns, len(queries)).items()}
        embedder = Embedder(batch_size=settings["embedding.batch_size"])
        embedder.encode_query("warm up")
        results["embed_query"] = percentiles_ms(interleaved_latency(
            {"embed": lambda i: embedder.encode_query(queries[i])}, min(len(queries), 100))["embed"])
        import torch

        threads = torch.get_num_threads()
        torch.set_num_threads(1)  # one query is too small to split; on a busy machine threads only wait
        results["embed_query_1_thread"] = percentiles_ms(interleaved_latency(
            {"embed": lambda i: embedder.encode_query(queries[i])}, min(len(queries), 100))["embed"])
        torch.set_num_threads(threads)
        graph.close()
        conn.close()
    total = results["search_nodes"]["p50_ms"] + results["embed_query"]["p50_ms"]
    total_1 = results["search_nodes"]["p50_ms"] + results["embed_query_1_thread"]["p50_ms"]
    report = {
        "entities": n, "queries": len(queries), "build_s": round(build_s, 1),
        **{name: {key: round(v, 2) for key, v in vals.items()} for name, vals in results.items()},
        "search_vs_raw_p50": round(results["search_nodes"]["p50_ms"] / results["raw_fts5_numpy"]["p50_ms"], 3),
        "search_with_embedding_p50_ms": round(total, 2),
        "search_with_embedding_1_thread_p50_ms": round(total_1, 2),
        "torch_threads": threads,
        "same_results_as_raw": f"{same}/{min(20, len(queries))}",
    }
    lines = [f"{n} entities, {len(queries)} queries, top-{K} of {CANDIDATES}+{CANDIDATES} candidates "
             f"(stored in {report['build_s']} s)"]
    for name in results:
        lines.append(f"{name:<16} p50 {report[name]['p50_ms']:7.2f} ms   p95 {report[name]['p95_ms']:7.2f} ms")
    lines.append(f"search_nodes / raw FTS5 + numpy doing the same work, at p50: {report['search_vs_raw_p50']:.3f} "
                 f"(same top-{K} on {report['same_results_as_raw']} queries)")
    lines.append(f"search_nodes including the real MiniLM query embedding (p50 sum): {total:.2f} ms with torch's "
                 f"{threads} thread(s), {total_1:.2f} ms with 1 thread (goal: <= 20 ms)")
    emit(report, args.json, lines)
    return 0
