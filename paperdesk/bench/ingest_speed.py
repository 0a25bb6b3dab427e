"""`paperdesk bench ingest`: parsing pages/s and embedding chunks/s.

paperdesk's parse (text, hyphenation, header/footer removal, sections,
chunks) runs next to raw PyMuPDF `page.get_text()` on the same files, and
paperdesk's embedder with each backend (ONNX int8, the default, and torch)
next to raw `SentenceTransformer.encode` on the same texts with the same batch
size, in the same run, interleaved (best of EMBED_ROUNDS each). The work is
what adding a paper does: each chunk's opening vector plus its tails
(search/segments.py), so raw encodes the chunks and their tail segments; the
ONNX rate for opening vectors only shows what the tails cost.
"""

from __future__ import annotations

import argparse
import os
import time
from typing import Any

import pymupdf

from paperdesk.bench.common import emit, note, timed
from paperdesk.core.config import Settings
from paperdesk.core.ingest.pdf import parse_pdf
from paperdesk.core.search.embedder import Embedder

REPEATS = 3
EMBED_ROUNDS = 2


def _raw_parse(path) -> int:
    with pymupdf.open(path) as doc:
        for page in doc:
            page.get_text()
        return doc.page_count


def _best(fn) -> tuple[float, Any]:
    runs = [timed(fn) for _ in range(REPEATS)]
    return min(r[0] for r in runs), runs[0][1]


def run(args: argparse.Namespace, settings: Settings) -> int:
    # torch's OpenMP threads spin for a while after each call; interleaved in one process, they took the
    # cores from the ONNX session that ran next (ONNX 36.1 vs 40.4 chunks/s, torch itself 17.7 vs 18.5).
    # The app never has both: with the ONNX backend torch is not imported. Set before torch is loaded.
    os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
    for path in args.files:
        if not path.is_file():
            raise SystemExit(f"no such file: {path}")
    pages = 0
    ours_parse = raw_parse = 0.0
    texts: list[str] = []
    for path in args.files:
        raw_s, count = _best(lambda: _raw_parse(path))
        our_s, parsed = _best(lambda: parse_pdf(path, settings["ingest.chunk_words"], settings["ingest.overlap_words"]))
        pages += count
        raw_parse += raw_s
        ours_parse += our_s
        texts.extend(c.text for c in parsed.chunks)
    note(f"{pages} pages, {len(texts)} chunks; embedding ...")
    batch = settings["embedding.batch_size"]
    onnx = Embedder(batch_size=batch, backend="onnx")
    torch = Embedder(batch_size=batch, backend="torch")
    raw = torch.model().st
    for embedder in (onnx, torch):
        embedder.encode(texts[:8])  # warm up every path alike (and export the ONNX model once, if needed)
    raw.encode(texts[:8], batch_size=8)
    segments = texts + [piece for text in texts for piece in onnx.segmenter().tails(text)]  # the same work, for raw
    times: dict[str, list[float]] = {"onnx": [], "torch": [], "raw": []}
    cpu: dict[str, list[float]] = {"onnx": [], "torch": []}
    for _ in range(EMBED_ROUNDS):
        for name, embedder in (("onnx", onnx), ("torch", torch)):
            cpu_start = time.process_time()
            times[name].append(timed(lambda: embedder.encode_chunks(texts))[0])
            cpu[name].append(time.process_time() - cpu_start)
        times["raw"].append(timed(lambda: raw.encode(segments, batch_size=batch, normalize_embeddings=True,
                                                     convert_to_numpy=True, show_progress_bar=False))[0])
    opening_s = min(timed(lambda: onnx.encode(texts))[0] for _ in range(EMBED_ROUNDS))
    onnx_s, torch_s, raw_embed = min(times["onnx"]), min(times["torch"]), min(times["raw"])
    our_embed = onnx_s if onnx.backend == "onnx-int8" else torch_s
    report = {
        "files": len(args.files),
        "pages": pages,
        "chunks": len(texts),
        "parse": {"paperdesk_pages_per_s": round(pages / ours_parse, 1), "raw_pages_per_s": round(pages / raw_parse, 1),
                  "ratio": round(raw_parse / ours_parse, 3)},
        "embed": {"torch_chunks_per_s": round(len(texts) / torch_s, 1), "onnx_chunks_per_s": round(len(texts) / onnx_s, 1),
                  "ratio": round(torch_s / onnx_s, 3), "onnx_backend": onnx.backend,
                  "vectors": len(segments), "onnx_opening_only_chunks_per_s": round(len(texts) / opening_s, 1),
                  # CPU seconds (all threads) per run: the cost ratio, steadier than wall time on a busy machine
                  "cpu_s": {"torch": round(min(cpu["torch"]), 2), "onnx": round(min(cpu["onnx"]), 2)},
                  "cpu_ratio": round(min(cpu["torch"]) / min(cpu["onnx"]), 3),
                  "paperdesk_chunks_per_s": round(len(texts) / our_embed, 1),
                  "raw_chunks_per_s": round(len(texts) / raw_embed, 1),
                  "paperdesk_torch_vs_raw_ratio": round(raw_embed / torch_s, 3)},
    }
    import torch as torch_lib

    from paperdesk.core.search.vectors import usable_cores

    # What the run used, so figures from different machines (or affinity masks) can be told apart: the
    # product takes its threads from the cores this process may use, never from the load average.
    report["threads"] = {"usable_cores": usable_cores(), "torch": torch_lib.get_num_threads(),
                         "onnx_intra_op": "onnxruntime default (one per physical core)",
                         "omp_wait_policy": os.environ.get("OMP_WAIT_POLICY", ""), "load_average": os.getloadavg()[0]}
    p, e = report["parse"], report["embed"]
    lines = [
        f"{len(args.files)} file(s), {pages} pages, {len(texts)} chunks ({len(segments)} vectors with the tails)",
        f"parse  paperdesk {p['paperdesk_pages_per_s']:.1f} pages/s   raw get_text {p['raw_pages_per_s']:.1f} pages/s   "
        f"speed ratio {p['ratio']:.3f}",
        f"embed  ONNX int8 {e['onnx_chunks_per_s']:.1f} chunks/s   torch {e['torch_chunks_per_s']:.1f} chunks/s   "
        f"ONNX/torch speed ratio {e['ratio']:.2f}x (goal >= 3x); CPU-time ratio {e['cpu_ratio']:.2f}x; "
        f"ONNX opening vectors only {e['onnx_opening_only_chunks_per_s']:.1f} chunks/s",
        f"embed  paperdesk torch {e['torch_chunks_per_s']:.1f} chunks/s   raw SentenceTransformer.encode "
        f"{e['raw_chunks_per_s']:.1f} chunks/s   speed ratio {e['paperdesk_torch_vs_raw_ratio']:.3f}",
        f"threads: {report['threads']['usable_cores']} usable core(s) by affinity; torch {report['threads']['torch']}; "
        f"ONNX intra-op onnxruntime default (one per physical core); load average {report['threads']['load_average']:.2f}",
    ]
    emit(report, args.json, lines)
    return 0
