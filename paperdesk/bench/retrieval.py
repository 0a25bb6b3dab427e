"""`paperdesk bench retrieval`: nDCG@10 and Recall@100 on a BEIR-layout dataset.

Keyword, vector and hybrid run through paperdesk's own indexes and ranker
(`HybridRanker.rank`), next to a reference BM25 (bm25s with the same
Snowball English stemmer) computed in the same run on the same data. A sweep
over the fusion settings shows why the default was chosen, and the `cv`
section chooses fusion by 5-fold cross-validation (choose on 4 folds, score
on the 5th) within a family fixed in advance, next to choosing among every
setting, and repeats both over 20 fold splits (see bench/cv.py). The corpus
is embedded with the configured backend (ONNX int8 by default) and, unless --no-torch, with torch too, to
print the nDCG@10 change between them.
"""

from __future__ import annotations

import argparse
import csv
import json
import math
import tempfile
from pathlib import Path
from typing import Any

import numpy as np

from paperdesk.bench import cv, cv_report
from paperdesk.bench.common import emit, note, timed
from paperdesk.core.config import Settings
from paperdesk.core.search.embedder import Embedder
from paperdesk.core.search.hybrid import HybridRanker
from paperdesk.core.search.keyword import KeywordDoc, KeywordIndex
from paperdesk.core.search.vectors import StoredVectors, VectorIndex


def load_beir(corpus: Path, queries: Path, qrels: Path):
    docs = []
    with corpus.open(encoding="utf-8") as fh:
        for line in fh:
            if line.strip():
                row = json.loads(line)
                docs.append((str(row.get("_id", row.get("doc_id"))), row.get("title", ""), row.get("text", "")))
    qs = {}
    with queries.open(encoding="utf-8") as fh:
        for line in fh:
            if line.strip():
                row = json.loads(line)
                qs[str(row.get("_id", row.get("query_id")))] = row["text"]
    rels: dict[str, dict[str, int]] = {}
    with qrels.open(encoding="utf-8") as fh:
        for row in csv.reader(fh, delimiter="\t"):
            if len(row) < 3 or not row[2].strip().lstrip("-").isdigit():
                continue  # header line
            rels.setdefault(row[0], {})[row[1]] = int(row[2])
    qs = {qid: text for qid, text in qs.items() if qid in rels}
    return docs, qs, rels


def ndcg_at(ranked: list[str], rel: dict[str, int], k: int = 10) -> float:
    dcg = sum(rel.get(d, 0) / math.log2(i + 2) for i, d in enumerate(ranked[:k]))
    ideal = sorted((g for g in rel.values() if g > 0), reverse=True)[:k]
    idcg = sum(g / math.log2(i + 2) for i, g in enumerate(ideal))
    return dcg / idcg if idcg else 0.0


def recall_at(ranked: list[str], rel: dict[str, int], k: int = 100) -> float:
    wanted = {d for d, g in rel.items() if g > 0}
    return len(wanted & set(ranked[:k])) / len(wanted) if wanted else 0.0


def evaluate(runs: dict[str, list[str]], rels: dict[str, dict[str, int]]) -> dict[str, float]:
    n = len(runs)
    return {
        "ndcg@10": round(sum(ndcg_at(runs[q], rels[q]) for q in runs) / n, 4),
        "recall@100": round(sum(recall_at(runs[q], rels[q]) for q in runs) / n, 4),
    }


def reference_bm25(docs, queries: dict[str, str]) -> dict[str, list[str]]:
    import bm25s
    import Stemmer

    stemmer = Stemmer.Stemmer("english")
    corpus_tokens = bm25s.tokenize([f"{t} {x}" for _, t, x in docs], stopwords=None, stemmer=stemmer, show_progress=False)
    retriever = bm25s.BM25(k1=1.2, b=0.75)
    retriever.index(corpus_tokens, show_progress=False)
    qids = list(queries)
    q_tokens = bm25s.tokenize([queries[q] for q in qids], stopwords=None, stemmer=stemmer, show_progress=False)
    results, _scores = retriever.retrieve(q_tokens, k=100, show_progress=False)
    return {qid: [docs[int(i)][0] for i in results[n]] for n, qid in enumerate(qids)}


def _vector_index(embedder: Embedder, texts: list[str], directory: Path) -> VectorIndex:
    """The corpus as the library indexes chunks: opening vectors and tails, document n as chunk id n."""
    chunks = embedder.encode_chunks(texts)
    vectors = VectorIndex(directory)
    StoredVectors.from_arrays(range(len(chunks)), chunks).load_into(vectors)
    return vectors


def _cross_validation(keyword, vectors, queries, qvecs, docs, rels) -> dict[str, Any]:
    index = {doc_id: n for n, (doc_id, _, _) in enumerate(docs)}
    qids = list(queries)
    int_rels = {q: {index[d]: g for d, g in rels[q].items() if d in index} for q in qids}
    keyword_runs, vector_runs, vector_fill = cv.collect_runs(keyword, vectors, queries, qvecs)
    settings, scores = cv.score_grid(keyword_runs, vector_runs, int_rels, qids, vector_fill)
    keyword_only = {name: np.array([cv.ndcg10([i for i, _ in runs[q]], int_rels[q]) for q in qids])
                    for name, runs in keyword_runs.items()}
    vector_only = np.array([cv.ndcg10([i for i, _ in vector_runs[q]], int_rels[q]) for q in qids])
    return cv_report.report(settings, scores, keyword_only, vector_only)


def run(args: argparse.Namespace, settings: Settings) -> int:
    docs, queries, rels = load_beir(args.corpus, args.queries, args.qrels)
    note(f"{len(docs)} documents, {len(queries)} queries")
    with tempfile.TemporaryDirectory(prefix="paperdesk-bench-") as tmp:
        keyword = KeywordIndex(Path(tmp) / "keyword")
        index_s, _ = timed(lambda: keyword.replace_papers(
            {"corpus": [KeywordDoc(i, "corpus", title, "", text) for i, (_, title, text) in enumerate(docs)]}
        ))
        texts = [f"{t}. {x}" if t else x for _, t, x in docs]
        embedder = Embedder(batch_size=settings["embedding.batch_size"], backend=settings["embedding.backend"])
        note(f"embedding the corpus (all-MiniLM-L6-v2, {embedder.expected_backend()}) ...")
        embed_s, vectors = timed(lambda: _vector_index(embedder, texts, Path(tmp) / "vectors"))
        qids = list(queries)
        qvecs = embedder.encode([queries[q] for q in qids])
        ranker = HybridRanker.from_settings(keyword, vectors, embedder.encode_query, settings)

        def run_mode(mode: str, r: HybridRanker = ranker) -> dict[str, list[str]]:
            return {q: [docs[h.chunk_id][0] for h in r.rank(queries[q], 100, mode, query_vector=qvecs[n])]
                    for n, q in enumerate(qids)}

        report: dict[str, Any] = {m: evaluate(run_mode(m), rels) for m in ("keyword", "vector", "hybrid")}
        report["hybrid"]["fusion"] = ranker.fusion_method
        if ranker.fusion_method == "convex":
            report["hybrid"]["alpha"] = ranker.alpha
            report["hybrid"].update(norm=ranker.norm, fill_vector=ranker.fill_vector, candidates=ranker.candidates)
        report["embedding_backend"] = embedder.backend
        note("cross-validating fusion settings ...")
        report["cv"] = _cross_validation(keyword, vectors, queries, qvecs, docs, rels)
        if not args.no_torch and embedder.backend != "torch":
            note("embedding the corpus again with the torch backend, for the comparison ...")
            torch_embedder = Embedder(batch_size=settings["embedding.batch_size"], backend="torch")
            torch_s, torch_vectors = timed(lambda: _vector_index(torch_embedder, texts, Path(tmp) / "vectors-torch"))
            torch_q = torch_embedder.encode([queries[q] for q in qids])
            torch_ranker = HybridRanker.from_settings(keyword, torch_vectors, torch_embedder.encode_query, settings)
            torch_runs = {m: {q: [docs[h.chunk_id][0] for h in torch_ranker.rank(queries[q], 100, m, query_vector=torch_q[n])]
                              for n, q in enumerate(qids)} for m in ("vector", "hybrid")}
            torch_eval = {m: evaluate(r, rels)["ndcg@10"] for m, r in torch_runs.items()}
            report["backend_compare"] = {
                "onnx_int8": {"vector": report["vector"]["ndcg@10"], "hybrid": report["hybrid"]["ndcg@10"]},
                "torch": torch_eval,
                "vector_change": round(report["vector"]["ndcg@10"] - torch_eval["vector"], 4),
                "hybrid_change": round(report["hybrid"]["ndcg@10"] - torch_eval["hybrid"], 4),
                "embed_corpus_s": {"onnx_int8": round(embed_s, 2), "torch": round(torch_s, 2)},
            }
        report["reference_bm25"] = evaluate(reference_bm25(docs, queries), rels)
        sweep: dict[str, Any] = {}
        for k in (10, 60):
            sweep[f"rrf k={k}"] = evaluate(run_mode("hybrid", HybridRanker(keyword, vectors, embedder.encode_query, "rrf", rrf_k=k)), rels)
        for alpha in np.round(np.arange(0.1, 1.0, 0.1), 1):
            sweep[f"convex alpha={alpha}"] = evaluate(
                run_mode("hybrid", HybridRanker(keyword, vectors, embedder.encode_query, "convex", alpha=float(alpha))), rels)
        report["fusion_sweep"] = sweep
        report["timings_s"] = {"keyword_index": round(index_s, 2), "embed_corpus": round(embed_s, 2)}
    if args.out:
        args.out.write_text(json.dumps(report, indent=2))
    gap = report["keyword"]["ndcg@10"] - report["reference_bm25"]["ndcg@10"]
    lines = [f"{m:<8} nDCG@10 {report[m]['ndcg@10']:.4f}  Recall@100 {report[m]['recall@100']:.4f}"
             for m in ("keyword", "vector", "hybrid")]
    lines.append(f"reference BM25 (bm25s) nDCG@10 {report['reference_bm25']['ndcg@10']:.4f}  "
                 f"Recall@100 {report['reference_bm25']['recall@100']:.4f}  (keyword - reference: {gap:+.4f})")
    lines.append("fusion sweep (on the same queries): " + "; ".join(f"{name} {v['ndcg@10']:.4f}" for name, v in sweep.items()))
    cvr = report["cv"]
    lines.append("5-fold CV, held-out nDCG@10 per fold (mean):")
    for m in ("keyword", "vector", "hybrid"):
        lines.append(f"  {m:<8} " + " ".join(f"{x:.4f}" for x in cvr[m]["per_fold"]) + f"   ({cvr[m]['mean']:.4f})")
    lines.append(f"  hybrid chosen among {cvr['hybrid']['chosen_among']} settings ({cv.FAMILY}): above both on "
                 f"{cvr['hybrid']['folds_won']} of {cvr['folds']} folds; "
                 f"winner on all dev queries: {cvr['winner']}")
    for key, name in (("hybrid_full_grid", f"chosen among all {cvr['settings_tried']} settings"),
                      ("hybrid_maximin", "all settings, best worst-fold margin")):
        m = cvr[key]
        lines.append(f"  hybrid, {name}: " + " ".join(f"{x:.4f}" for x in m["per_fold"])
                     + f"   ({m['mean']:.4f}); above both on {m['folds_won']} of {cvr['folds']} folds")
    lines.append(f"  settings above both on every fold when fixed in advance: "
                 f"{cvr['settings_winning_every_fold_in_sample']} of {cvr['settings_tried']}")
    for key, name in (("family", "chosen family"), ("full_grid", "full grid")):
        r = cvr["repeated"][key]
        lines.append(f"  {r['splits']} fold splits (seeds 0-{r['splits'] - 1}), {name}: hybrid above both on "
                     f"{r['folds_won']} of {r['folds']} held-out folds, on every fold in "
                     f"{r['splits_won_on_every_fold']} of {r['splits']} splits; "
                     f"held-out mean {r['mean_held_out']:.4f}")
    lines.append("  held-out mean when choosing only within: " +
                 "; ".join(f"{k} {v:.4f}" for k, v in cvr["held_out_by_family"].items()))
    if "backend_compare" in report:
        b = report["backend_compare"]
        lines.append(f"nDCG@10 onnx int8 - torch: vector {b['vector_change']:+.4f}, hybrid {b['hybrid_change']:+.4f} "
                     f"(torch hybrid {b['torch']['hybrid']:.4f}); corpus embedding s {b['embed_corpus_s']}")
    emit({k: v for k, v in report.items()}, args.json, lines)
    return 0
