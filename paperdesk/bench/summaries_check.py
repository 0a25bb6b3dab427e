"""`paperdesk bench summaries [FILE.pdf ...]`: summaries of several papers, each sentence checked on its page.

One library holds the papers (default: the 4 fixture papers). Each is
summarized with the configured writer (or --writer); every shown sentence is
then checked by bench's own code (discuss_check.sentence_supported, written
apart from the summarizer's gate): its numbers and names must be on the page
it cites, and most of its longer words. Prints per paper the time, the shown
sentences, how many of them are cited, how many the check finds unsupported
(each listed), the sections quoted from the paper, how many of the paper's QA questions the summary answers
(and its Limitations section the limitation question's; summary_questions.py), and the totals.
"""

from __future__ import annotations

import argparse
import os
import re
import tempfile
from pathlib import Path
from typing import Any, Sequence

from paperdesk.bench.common import emit, note, timed
from paperdesk.bench import summary_figures, summary_questions
from paperdesk.bench.discuss_check import sentence_supported
from paperdesk.core.agents import quality
from paperdesk.core.agents.citations import CITATION
from paperdesk.core.agents.summarizer import Summarizer, split_sections
from paperdesk.core.config import Settings
from paperdesk.core.library.library import Library

FIXTURES = Path(__file__).resolve().parents[2] / "tests" / "fixtures" / "papers"
MORE = Path(__file__).resolve().parents[2] / "bench" / "data" / "papers-more" / "papers"
# `--set more`: six held-out papers, three from each half of bench qa's split (qa_split.py)
MORE_SET = ("grobid-client-python__0046d83a-edd6-4631-b57c-755cdcce8b7f.pdf",  # tune: FES hand opening
            "papers-cli__bg-8-515-2011.pdf",  # tune: ice-edge blooms
            "mmda__test_doc_sha_d0450478c38dda61f9943f417ab9fcdb2ebeae0a.pdf",  # tune: smart cities
            "refextract__2110.02751.pdf",  # check: nuclear recoils
            "refextract__1707.04066v1.pdf",  # check: near-Earth objects
            "r-cran-vcd__residual-shadings.pdf")  # check: residual-based shadings


def abstract_of(library: Library, paper_id: str) -> str:
    """The paper's abstract: its chunks of an abstract section from the word "Abstract" on (a short title
    block is folded into the abstract's first chunk: its names and dates are not the abstract's figures);
    without one, the first page's first paragraph of prose (a letter opens with its abstract unheaded),
    else the whole first page."""
    chunks = library.store.chunks_of(paper_id)
    named = [c.text for c in chunks if "abstract" in c.section.lower()]
    if named:
        start = re.search(r"\bAbstract\b|\bABSTRACT\b", named[0])
        return " ".join([named[0][start.start():] if start else named[0], *named[1:]])
    page = library.store.page_text(paper_id, 1) or ""
    return next((p for p in page.split("\n\n") if _prose_paragraph(p)), page)


def _prose_paragraph(text: str) -> bool:
    """A paragraph of running text: 60 words or more, in two sentences or more."""
    return len(text.split()) >= 60 and len(re.findall(r"[a-z]{2}[.!?](?:\s|$)", text)) >= 2


def shown_sentences(text: str) -> list[str]:
    """The summary's sentences as a reader sees them (a quoted bullet is one), the section notes left out."""
    out: list[str] = []
    for body in split_sections(text).values():
        for line in body.splitlines():
            if line.startswith(quality.EXTRACTIVE_MARK) or not line.strip():
                continue
            parts = [line] if line.startswith("- “") else quality.split_sentences(line)
            out += [p.strip(" -") for p in parts if quality.words(p)]
    return out


def run(args: argparse.Namespace, settings: Settings) -> int:
    if getattr(args, "set", None) == "more":
        files: Sequence[Path] = [MORE / name for name in MORE_SET]
    else:
        files = args.files or sorted(FIXTURES.glob("*.pdf"))
    if args.writer:
        settings = settings.with_overrides(**{"llm.model_path": "", "llm.writer_model": args.writer})
    load_before = os.getloadavg()
    rows: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory(prefix="paperdesk-bench-") as tmp:
        settings = settings.with_overrides(home=tmp, offline=True)
        library = Library(settings)
        from paperdesk.core.llm.factory import make_backend
        from paperdesk.core.llm.models import resolve_writer

        writer = resolve_writer(settings).name if settings["llm.backend"] != "remote" else "remote"
        ingest_s, papers = timed(lambda: [library.add_pdf(f).paper for f in files])
        backend = make_backend(settings)
        load_s, _ = timed(lambda: getattr(backend, "llama", lambda: None)())
        summarizer = Summarizer.from_settings(library.store, backend, settings, embedder=library.embedder)
        for pdf, paper in zip(files, papers):
            note(f"{paper.id}: summarizing ...")
            seconds, result = timed(lambda pid=paper.id: summarizer.summarize(pid))
            sentences = shown_sentences(result.text)
            page = lambda pid, p: library.store.page_text(pid, p) or ""  # noqa: E731
            bad = [s for s in sentences if not sentence_supported(s, paper.id, page)]
            covered, wanted = summary_figures.coverage(abstract_of(library, paper.id), sentences,
                                                       lambda p, pid=paper.id: page(pid, p))
            g = result.grounding
            rows.append({"paper": paper.id, "title": paper.title[:60], "seconds": round(seconds, 1),
                         "sentences": len(sentences), "cited": sum(bool(CITATION.search(s)) for s in sentences),
                         "unsupported": len(bad), "unsupported_sentences": bad,
                         "extractive_sections": g.extractive_sections, "regenerated": g.regenerated,
                         "timings": {k: round(v, 1) for k, v in result.timings.items()},
                         "model_sentences": g.kept,
                         "generated": g.generated, "text": result.text,
                         "leaked": sum(summary_figures.leaked(s) for s in sentences),
                         "generic": sum(summary_figures.generic(s, paper.title) for s in sentences),
                         "abstract_figures": wanted, "figures_covered": covered,
                         **summary_questions.stated(result.text, summary_questions.questions_of(Path(pdf)))})
            note(f"{paper.id}: {seconds:.1f} s, {len(sentences)} sentences, {len(bad)} unsupported by the check")
        library.close()
    load_after = os.getloadavg()
    keys = ("seconds", "sentences", "cited", "unsupported", "model_sentences", "generated", "leaked", "generic",
            "abstract_figures", "figures_covered", "questions", "answered", "limitation_questions",
            "limitations_named")
    total = {k: round(sum(r[k] for r in rows), 1) for k in keys}
    report = {"writer": writer, "cores": os.cpu_count(), "ingest_s": round(ingest_s, 1),
              "model_load_s": round(load_s, 1), "papers": rows, "totals": total,
              "load_average_before": [round(x, 1) for x in load_before],
              "load_average_after": [round(x, 1) for x in load_after]}
    lines = [f"{len(rows)} papers, writer {writer}, {report['cores']} cores; ingest {report['ingest_s']} s and "
             f"model load {report['model_load_s']} s (not in the times)",
             f"{'paper':<22} {'time':>8} {'sentences':>10} {'cited':>6} {'unsupported':>12} {'leaked':>7} "
             f"{'generic':>8} {'coverage':>9} {'answers':>8} {'limits':>7} {'model-written':>14}  quoted sections"]
    for r in rows + [{"paper": "total", "extractive_sections": [], **total}]:
        share = f"{r['figures_covered']}/{int(r['abstract_figures'])}"
        answers = f"{r['answered']}/{int(r['questions'])}"
        limits = f"{r['limitations_named']}/{int(r['limitation_questions'])}"
        lines.append(f"{r['paper'][:22]:<22} {r['seconds']:>7.1f}s {r['sentences']:>10} {r['cited']:>6} "
                     f"{r['unsupported']:>12} {r['leaked']:>7} {r['generic']:>8} {share:>9} {answers:>8} {limits:>7} "
                     f"{r['model_sentences']:>6}/{r['generated']:<7}  {', '.join(r['extractive_sections']) or '-'}")
    lines += [f"  unsupported ({r['paper']}): {s[:160]}" for r in rows for s in r["unsupported_sentences"]]
    lines.append(f"load average before {report['load_average_before']}, after {report['load_average_after']}")
    emit(report, args.json, lines)
    return 0
