"""`paperdesk bench summarize FILE.pdf`: time per stage of a full summary, and time to first token.

Runs in a temporary library: parse, index (embed + store + indexes), map,
reduce, with the configured backend (default: the local Gemma 3 270M). Also
prints the summary's grounding: the share of its sentences a source chunk
supports (cited), and which sections the quality gate regenerated or quoted.
"""

from __future__ import annotations

import argparse
import tempfile
import time

from paperdesk.bench.common import emit, note
from paperdesk.core.config import Settings
from paperdesk.core.agents.citations import CITATION
from paperdesk.core.agents.summarizer import Summarizer
from paperdesk.core.library.library import Library
from paperdesk.core.llm.factory import make_backend


def run(args: argparse.Namespace, settings: Settings) -> int:
    with tempfile.TemporaryDirectory(prefix="paperdesk-bench-") as tmp:
        library = Library(settings.with_overrides(home=tmp))
        library.embedder.model()
        backend = make_backend(settings)
        backend.warm_up()  # load outside the timings, as a running app would have
        stamps: dict[str, float] = {}
        start = time.perf_counter()

        def progress(p) -> None:
            stamps[p.stage] = time.perf_counter()  # last report of each stage = when it finished

        paper = library.add_pdf(args.file, progress=progress).paper
        indexed = time.perf_counter()
        note(f"{paper.title[:60]}: {paper.page_count} pages; summarizing ...")
        summarizer = Summarizer.from_settings(library.store, backend, settings, embedder=library.embedder)
        result = summarizer.summarize(paper.id)  # with the summary.* settings a user's config gives
        done = time.perf_counter()
        library.close()
    parse_s = stamps.get("parse", indexed) - start
    report = {
        "file": str(args.file),
        "pages": paper.page_count,
        "parse_s": round(parse_s, 2),
        "index_s": round(indexed - start - parse_s, 2),
        "first_token_after_index_s": round(result.timings.get("first_token_s", float("nan")), 2),
        "map_s": round(result.timings["map_s"], 2),
        "reduce_s": round(result.timings["reduce_s"], 2),
        "summary_s": round(done - indexed, 2),
        "total_s": round(done - start, 2),
        "citations": len(result.citations),
        "removed_citations": len(result.removed_citations),
        "grounding": result.grounding.to_json(),
        "text": result.text,
        "dropped_sentences": result.grounding.dropped_sentences,
    }
    g = result.grounding
    lines = [
        f"{args.file.name}: {paper.page_count} pages",
        f"parse {report['parse_s']:.2f} s   index (embed + store) {report['index_s']:.2f} s",
        f"first token {report['first_token_after_index_s']:.2f} s after indexing   map {report['map_s']:.2f} s   "
        f"reduce {report['reduce_s']:.2f} s",
        f"summary {report['summary_s']:.2f} s   total {report['total_s']:.2f} s   "
        f"citations kept {report['citations']} distinct pages, removed {report['removed_citations']}",
        f"supported share {g.supported_share:.2f} ({g.cited} of {g.sentences} shown sentences cited)   "
        f"kept {g.kept} of the model's {g.generated} sentences ({g.kept_share:.2f}; {g.unsupported} unsupported, "
        f"{g.loops_dropped} repeats dropped)   page citations in text {len(CITATION.findall(result.text))}",
        f"regenerated {', '.join(g.regenerated) or 'none'}   extractive {', '.join(g.extractive_sections) or 'none'}"
        f"   leaks removed {g.leaks_removed}   numbers flagged {g.numbers_flagged}",
    ]
    emit(report, args.json, lines)
    return 0
