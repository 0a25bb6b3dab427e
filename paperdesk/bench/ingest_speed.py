"""`paperdesk bench ingest`: parsing pages/s and embedding chunks/s.

paperdesk's parse (text, hyphenation, header/footer removal, sections,
chunks) runs next to raw PyMuPDF `page.get_text()` on the same files, and
paperdesk's embedder next to raw `SentenceTransformer.encode` on the same
chunk texts with the same batch size, in the same run.
"""

from __future__ import annotations

import argparse
from typing import Any

import pymupdf

from paperdesk.bench.common import emit, note, timed
from paperdesk.config import Settings
from paperdesk.core.ingest.pdf import parse_pdf
from paperdesk.core.search.embedder import Embedder

REPEATS = 3


def _raw_parse(path) -> int:
    with pymupdf.open(path) as doc:
        for page in doc:
            page.get_text()
        return doc.page_count


def _best(fn) -> tuple[float, Any]:
    runs = [timed(fn) for _ in range(REPEATS)]
    return min(r[0] for r in runs), runs[0][1]


def run(args: argparse.Namespace, settings: Settings) -> int:
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
    embedder = Embedder(batch_size=settings["embedding.batch_size"])
    model = embedder.model()
    model.encode(texts[:8], batch_size=8)  # warm up both paths alike
    raw_embed, _ = timed(lambda: model.encode(texts, batch_size=embedder.batch_size, normalize_embeddings=True,
                                              convert_to_numpy=True, show_progress_bar=False))
    our_embed, _ = timed(lambda: embedder.encode(texts))
    report = {
        "files": len(args.files),
        "pages": pages,
        "chunks": len(texts),
        "parse": {"paperdesk_pages_per_s": round(pages / ours_parse, 1), "raw_pages_per_s": round(pages / raw_parse, 1),
                  "ratio": round(raw_parse / ours_parse, 3)},
        "embed": {"paperdesk_chunks_per_s": round(len(texts) / our_embed, 1),
                  "raw_chunks_per_s": round(len(texts) / raw_embed, 1), "ratio": round(raw_embed / our_embed, 3)},
    }
    p, e = report["parse"], report["embed"]
    lines = [
        f"{len(args.files)} file(s), {pages} pages, {len(texts)} chunks",
        f"parse  paperdesk {p['paperdesk_pages_per_s']:.1f} pages/s   raw get_text {p['raw_pages_per_s']:.1f} pages/s   "
        f"speed ratio {p['ratio']:.3f}",
        f"embed  paperdesk {e['paperdesk_chunks_per_s']:.1f} chunks/s   raw encode {e['raw_chunks_per_s']:.1f} chunks/s   "
        f"speed ratio {e['ratio']:.3f}",
    ]
    emit(report, args.json, lines)
    return 0
