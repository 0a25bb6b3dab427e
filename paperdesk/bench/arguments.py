"""The arguments of `paperdesk bench ...`, added to the CLI's parser by the `paperdesk` entry point."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from paperdesk.cli_common import Parser


def add_parser(sub: Any) -> None:
    bench = sub.add_parser("bench", help="benchmarks that print figures")
    bench_sub = bench.add_subparsers(dest="bench", parser_class=Parser, required=True)
    p = bench_sub.add_parser("retrieval", help="nDCG@10 / Recall@100 on a BEIR-layout dataset")
    p.add_argument("--corpus", required=True, type=Path)
    p.add_argument("--queries", required=True, type=Path)
    p.add_argument("--qrels", required=True, type=Path)
    p.add_argument("--out", type=Path, help="write the full report (with the fusion sweep) here")
    p.add_argument("--no-torch", action="store_true", help="skip the torch-backend comparison")
    p.add_argument("--json", action="store_true")
    p = bench_sub.add_parser("search", help="query latency on a synthetic corpus")
    p.add_argument("--chunks", type=int, default=100_000)
    p.add_argument("--queries", type=int, default=200)
    p.add_argument("--json", action="store_true")
    p = bench_sub.add_parser("llm", help="prompt/decode tokens/s vs raw llama_cpp, and cancel latency; with --model: "
                                         "per model, tokens/s and the gain of prefix reuse and prompt lookup")
    p.add_argument("--model", action="append", help="catalogue name or GGUF path (repeat to compare models)")
    p.add_argument("--tokens", type=int, default=64)
    p.add_argument("--repeats", type=int, default=5)
    p.add_argument("--json", action="store_true")
    p = bench_sub.add_parser("summarize", help="time to first token and per-stage time of a full summary")
    p.add_argument("file", type=Path)
    p.add_argument("--json", action="store_true")
    p = bench_sub.add_parser("summaries", help="summaries of the 4 fixture papers (or the PDFs given), every "
                                               "sentence checked on the page it cites")
    p.add_argument("files", type=Path, nargs="*")
    p.add_argument("--set", choices=("fixtures", "more"), default="fixtures",
                   help="more: six held-out papers (three of each half of bench qa's split) instead of the fixtures")
    p.add_argument("--writer", help="catalogue name or GGUF path of the writer (default: the configured one)")
    p.add_argument("--json", action="store_true")
    p = bench_sub.add_parser("startup", help="time to the first painted screen and to models ready, vs raw libraries")
    p.add_argument("--repeats", type=int, default=5)
    p.add_argument("--timeout", type=float, default=120.0, help="seconds to wait for one start")
    p.add_argument("--home", help="data dir to start on (default: a new empty one)")
    p.add_argument("--json", action="store_true")
    p = bench_sub.add_parser("route", help="dispatcher accuracy on the labelled dev set, and latency per route")
    p.add_argument("--dev", type=Path, action="append", help="a labelled JSONL set (default: the repo's dev and "
                                                                 "holdout sets)")
    p.add_argument("--repeats", type=int, default=2, help="decisions per message for the latency figures")
    p.add_argument("--json", action="store_true")
    p = bench_sub.add_parser("memory", help="memory-graph search latency with 10,000 entities vs raw FTS5 + numpy")
    p.add_argument("--entities", type=int, default=10_000)
    p.add_argument("--queries", type=int, default=200)
    p.add_argument("--json", action="store_true")
    p = bench_sub.add_parser("discuss", help="full discussions (N=10, K=3) of the 4 fixture papers (or one PDF): "
                                             "time, model-phrased and repeated questions, supported sentences")
    p.add_argument("file", type=Path, nargs="?", help="one PDF to discuss (default: the 4 fixture papers)")
    p.add_argument("--writer", help="writer model for this run: a catalogue name or GGUF path")
    p.add_argument("--only", type=int, default=0, help="with no file: only the first N fixture papers")
    p.add_argument("--turns", type=int, default=10)
    p.add_argument("--every", type=int, default=3)
    p.add_argument("--baseline", action="store_true", help="first the same run without the prompt-prefix cache")
    p.add_argument("--papers-more", action="store_true", dest="papers_more",
                   help="four held-out papers (two of each half) in one library of all 30 bench papers")
    p.add_argument("--json", action="store_true")
    p = bench_sub.add_parser("plan", help="research planner: valid-plan rate, share by model, acceptable share, time")
    p.add_argument("--limit", type=int, default=0, help="only N questions, spread over the dev set")
    p.add_argument("--no-model", action="store_true", help="rules only (the fallback's own figures)")
    p.add_argument("--models", help="comma-separated catalogue names or GGUF paths, each planning alone "
                                    "(default: the structure model alone, then with the writer's fallback)")
    p.add_argument("--json", action="store_true")
    p = bench_sub.add_parser("research", help="plan, per-step, synthesis, total time of a 3-step plan; cancel latency")
    p.add_argument("--library", help="data dir of a library holding the 4 fixture papers (default: a new temp one)")
    p.add_argument("--papers-more", action="store_true", dest="papers_more",
                   help="instead: six questions over the 30 held-out bench papers, each report checked against "
                        "its cited pages (supported sentences, papers, vacuous sentences, agent calls, time)")
    p.add_argument("--only", type=int, default=0, help="with --papers-more: only the first N questions")
    p.add_argument("--json", action="store_true")
    p = bench_sub.add_parser("faults", help="kill -9, two writers, full disk, hostile HTTP, bad input: tries/clean/lost")
    p.add_argument("--kills", type=int, default=24, help="kill -9 trials in all (add, summarize, research)")
    p.add_argument("--seed", type=int, default=11)
    p.add_argument("--only", action="append", choices=("kill", "writers", "disk", "shell", "http", "export", "sse",
                                                       "input", "rebuild", "copied", "dispatch", "limits", "batch"))
    p.add_argument("--json", action="store_true")
    p = bench_sub.add_parser("qa", help="paper-QA: correct answers, on-target citations, answer time, per model")
    p.add_argument("--questions", type=Path, help="JSON Lines of questions (see tests/fixtures/qa_dev.jsonl)")
    p.add_argument("--split", choices=("tune", "check"),
                   help="the held-out set's half, against one library of all 30 papers (check: totals only)")
    p.add_argument("--papers", type=Path, help="folder of the questions' PDFs (default: papers/ beside the file)")
    p.add_argument("--models", help="comma-separated GGUF paths (or model names) to compare; default: the configured one")
    p.add_argument("--limit", type=int, default=0, help="only N questions, spread over the set")
    p.add_argument("--ids", help="only these questions (comma-separated ids), e.g. the ones a change touches; "
                                 "not for the check half")
    p.add_argument("--evidence", action="store_true",
                   help="does the evidence the writer would read hold the answer, on a supporting page? No model "
                        "runs, unless --models names a writer and answer.judge is on: then it judges the sentences")
    p.add_argument("--results", type=Path,
                   help="also write each question's full answer (text, citations, passages) to this JSON Lines file, "
                        "to study a change without the model; not for the check half")
    p.add_argument("--json", action="store_true")
    p = bench_sub.add_parser("import", help="papers/minute for a folder in one run vs one add per paper, peak "
                             "memory, search at 500 papers, a Ctrl-C and re-run")
    p.add_argument("--generated", type=int, default=500, help="distinct PDFs built from real pages (0: none)")
    p.add_argument("--interrupt-papers", type=int, default=40, help="papers in the Ctrl-C trial's batch")
    p.add_argument("--seed", type=int, default=3)
    p.add_argument("--json", action="store_true")
    p = bench_sub.add_parser("keys", help="key-to-screen latency p50/p95 while the model generates, vs idle")
    p.add_argument("--pdf", type=Path, help="the paper to summarize (default: a fixture paper)")
    p.add_argument("--keys", type=int, default=60, help="keys typed in each phase")
    p.add_argument("--interval", type=float, default=0.15, help="seconds between keys (typing speed)")
    p.add_argument("--json", action="store_true")
    p = bench_sub.add_parser("ingest", help="parsing and embedding throughput")
    p.add_argument("files", nargs="+", type=Path)
    p.add_argument("--json", action="store_true")
