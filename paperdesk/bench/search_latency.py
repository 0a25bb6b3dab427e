"""`paperdesk bench search`: query latency on a synthetic corpus of N chunks.

Chunks are Zipf-distributed words from a synthetic vocabulary; vectors are
random unit vectors (no model needed, so N can be large), with as many tail
vectors per chunk as the fixture papers' chunks have (search/segments.py).
Each query runs through paperdesk's ranker in keyword, vector and hybrid mode,
next to raw tantivy (parse + top-k search + chunk ids) and raw numpy
(matrix-vector product over every vector, tails included, + top-k) doing the
same work in the same run.
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path
from typing import Any, Callable

import numpy as np

from paperdesk.bench.common import emit, note, percentiles_ms, timed
from paperdesk.core.config import Settings
from paperdesk.core.search.embedder import DIM, Embedder
from paperdesk.core.search.hybrid import HybridRanker
from paperdesk.core.search.keyword import SEARCH_FIELDS, KeywordDoc, KeywordIndex
from paperdesk.core.search.vectors import VectorIndex

VOCAB = 30_000
WORDS_PER_CHUNK = 250
# Tails per chunk on the 4 fixture papers' 177 chunks (300 words each): 0 for 21, 1 for 116, 2 for 37, 3 for 3.
TAIL_SHARES = np.array([21, 116, 37, 3]) / 177


def synthetic_words(rng: np.random.Generator) -> list[str]:
    syllables = ["ka", "to", "ri", "mo", "sen", "la", "vi", "dra", "pu", "ne", "sto", "gal", "mi", "or", "te"]
    words = set()
    while len(words) < VOCAB:
        words.add("".join(rng.choice(syllables, size=rng.integers(2, 5))))
    return sorted(words)


def _unit(rows: np.ndarray) -> np.ndarray:
    return rows / np.linalg.norm(rows, axis=1, keepdims=True)


def build(n: int, directory: Path, rng: np.random.Generator) -> tuple[KeywordIndex, VectorIndex, list[str], np.ndarray]:
    vocab = np.array(synthetic_words(rng))
    ranks = np.arange(1, VOCAB + 1)
    weights = 1.0 / ranks
    weights /= weights.sum()
    keyword = KeywordIndex(directory / "keyword")
    batch = 10_000
    for start in range(0, n, batch):
        count = min(batch, n - start)
        picks = rng.choice(VOCAB, size=(count, WORDS_PER_CHUNK), p=weights)
        docs = [KeywordDoc(start + i, f"p{(start + i) // 40}", " ".join(vocab[picks[i, :8]]), "", " ".join(vocab[picks[i]]))
                for i in range(count)]
        by_paper: dict[str, list[KeywordDoc]] = {}
        for doc in docs:
            by_paper.setdefault(doc.paper_id, []).append(doc)
        keyword.replace_papers(by_paper)
        note(f"indexed {start + count}/{n} chunks")
    matrix = _unit(rng.standard_normal((n, DIM), dtype=np.float32))
    tail_ids = np.repeat(np.arange(n), rng.choice(len(TAIL_SHARES), size=n, p=TAIL_SHARES))
    vectors = VectorIndex(directory / "vectors")
    vectors.set_all(range(n), matrix, tail_ids, _unit(rng.standard_normal((len(tail_ids), DIM), dtype=np.float32)))
    return keyword, vectors, list(vocab), weights


def interleaved_latency(fns: dict[str, Callable[[int], Any]], count: int) -> dict[str, list[float]]:
    """Time every function on every query, round-robin, so no method gets a warmer machine."""
    for i in range(min(5, count)):  # warm caches
        for fn in fns.values():
            fn(i)
    samples: dict[str, list[float]] = {name: [] for name in fns}
    for i in range(count):
        for name, fn in fns.items():
            start = time.perf_counter()
            fn(i)
            samples[name].append(time.perf_counter() - start)
    return samples


def run(args: argparse.Namespace, settings: Settings) -> int:
    rng = np.random.default_rng(7)
    n, k, pool = args.chunks, 10, settings["search.candidates"]
    with tempfile.TemporaryDirectory(prefix="paperdesk-bench-") as tmp:
        build_s, (keyword, vectors, vocab, weights) = timed(lambda: build(n, Path(tmp), rng))
        # Queries of 3-6 words from the mid-frequency band, as real questions mostly are.
        band = np.arange(50, 5000)
        queries = [" ".join(vocab[i] for i in rng.choice(band, size=rng.integers(3, 7))) for _ in range(args.queries)]
        qvecs = rng.standard_normal((args.queries, DIM), dtype=np.float32)
        qvecs /= np.linalg.norm(qvecs, axis=1, keepdims=True)
        # The configured fusion (norm, exact cosines for keyword-only hits, ...), as a user's query runs it.
        ranker = HybridRanker.from_settings(keyword, vectors, lambda q: qvecs[0], settings)
        index = keyword.index
        matrix = np.vstack([vectors.matrix, vectors.tails])  # every vector, as raw numpy would hold them

        def raw_tantivy(i: int, limit: int) -> list[int]:
            searcher = index.searcher()
            hits = searcher.search(index.parse_query(queries[i].lower(), SEARCH_FIELDS), limit=limit, count=False).hits
            return searcher.fast_field_values("chunk_id", [a for _, a in hits])

        def raw_numpy(i: int, limit: int) -> np.ndarray:
            scores = matrix @ qvecs[i]
            top = np.argpartition(-scores, limit - 1)[:limit]
            return top[np.argsort(-scores[top])]

        fns: dict[str, Callable[[int], Any]] = {
            "keyword": lambda i: ranker.rank(queries[i], k, "keyword", query_vector=qvecs[i]),
            "vector": lambda i: ranker.rank(queries[i], k, "vector", query_vector=qvecs[i]),
            "hybrid": lambda i: ranker.rank(queries[i], k, "hybrid", query_vector=qvecs[i]),
            "raw_tantivy": lambda i: raw_tantivy(i, k),
            "raw_numpy": lambda i: raw_numpy(i, k),
            f"raw_tantivy_top{pool}": lambda i: raw_tantivy(i, pool),
            f"raw_numpy_top{pool}": lambda i: raw_numpy(i, pool),
        }
        results = {name: percentiles_ms(t) for name, t in interleaved_latency(fns, args.queries).items()}
        # What a person's query also pays: encoding it with the real embedding model.
        embedder = Embedder(batch_size=settings["embedding.batch_size"])
        embedder.encode_query("warm up")
        results["embed_query"] = percentiles_ms(interleaved_latency(
            {"embed": lambda i: embedder.encode_query(queries[i])}, min(args.queries, 100))["embed"])
        raw_sum = results[f"raw_tantivy_top{pool}"]["p50_ms"] + results[f"raw_numpy_top{pool}"]["p50_ms"]
        report = {
            "chunks": n,
            "vectors": len(vectors.ids) + len(vectors.tail_ids),
            "queries": args.queries,
            "candidates_per_method": pool,
            "build_s": round(build_s, 1),
            **{name: {key: round(v, 2) for key, v in vals.items()} for name, vals in results.items()},
            "hybrid_vs_raw_sum_p50": round(results["hybrid"]["p50_ms"] / raw_sum, 3),
            "keyword_vs_raw_tantivy_p50": round(results["keyword"]["p50_ms"] / results["raw_tantivy"]["p50_ms"], 3),
            "vector_vs_raw_numpy_p50": round(results["vector"]["p50_ms"] / results["raw_numpy"]["p50_ms"], 3),
        }
    lines = [f"{n} chunks ({report['vectors']} vectors with their tails), {args.queries} queries, "
             f"top-{pool} candidates per method (built in {report['build_s']} s)"]
    for name in results:
        lines.append(f"{name:<18} p50 {report[name]['p50_ms']:7.2f} ms   p95 {report[name]['p95_ms']:7.2f} ms")
    lines.append(f"hybrid (top-{k} of {pool}+{pool} fused) / (raw tantivy top-{pool} + raw numpy top-{pool}) at p50: {report['hybrid_vs_raw_sum_p50']:.3f}")
    lines.append(f"hybrid including query embedding (p50 sum): {report['hybrid']['p50_ms'] + report['embed_query']['p50_ms']:.2f} ms")
    lines.append(f"keyword / raw tantivy: {report['keyword_vs_raw_tantivy_p50']:.3f}   "
                 f"vector / raw numpy: {report['vector_vs_raw_numpy_p50']:.3f}")
    emit(report, args.json, lines)
    return 0
