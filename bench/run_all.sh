#!/usr/bin/env bash
# Run every benchmark on the shared data and print the figures.
set -euo pipefail
cd "$(dirname "$0")/.."
PD=.venv/bin/paperdesk
DATA=${PAPERDESK_BENCH_DATA:-../shared/data}
$PD bench retrieval --corpus "$DATA/scifact-dev/corpus.jsonl" --queries "$DATA/scifact-dev/queries.jsonl" --qrels "$DATA/scifact-dev/qrels.tsv"
$PD bench search --chunks 100000
$PD bench ingest tests/fixtures/papers/*.pdf
$PD bench llm
$PD bench summarize tests/fixtures/papers/2302.07302v1.pdf
$PD bench startup
$PD bench route
$PD bench memory
$PD bench discuss tests/fixtures/papers/2302.07302v1.pdf
$PD bench faults
