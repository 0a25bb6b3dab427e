"""`paperdesk bench import`: bringing a folder of papers in, against one `paperdesk add` per paper.

In the same run, on scratch libraries:
- the real set (the 4 fixture papers and the 26 of bench/data/papers-more) added the old way, one
  `paperdesk add FILE` process per paper (the baseline: each loads the embedder again), then in one
  `paperdesk add DIR` run: papers per minute for each, their ratio, pages per second, the peak memory of
  the process;
- a generated set of distinct PDFs built from the real papers' pages (a few consecutive pages of one paper,
  stamped with their number, so sizes and text are real), added in one run, then the library's search
  p50 / p95 over 30 queries and the time `paperdesk list` takes;
- a Ctrl-C (SIGINT) at a random moment in a batch, then the same command again: every paper must be in the
  library exactly once and the library consistent.
"""

from __future__ import annotations

import argparse
import os
import random
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from paperdesk.bench.common import emit, note
from paperdesk.core.config import Settings

QUERIES = ["how are citations tracked while reading", "quantile regression estimates", "conditional inference trees",
           "mixture model components", "structural change test", "sea ice primary production", "electrical stimulation",
           "summaries of legal documents", "count data regression", "covariance matrix estimators",
           "seriation of a dissimilarity matrix", "sparse matrices in R", "near-Earth object sizes",
           "nuclear recoil ionization yield", "timetabling benchmark instances", "smart city technology matrix",
           "explanations of molecular predictions", "AI support for expository writing", "PDF document toolkit",
           "generalized method of moments", "simultaneous confidence intervals", "network data structures",
           "zoo time series", "residual-based shadings", "endemic epidemic model", "bootstrap distribution fit",
           "cluster ensembles consensus", "permutation tests", "sentence segmentation", "Rcpp integration"]


def real_pdfs() -> list[Path]:
    """The 30 real papers: the fixtures and bench/data/papers-more."""
    import paperdesk

    root = Path(paperdesk.__file__).resolve().parent.parent
    return sorted((root / "tests" / "fixtures" / "papers").glob("*.pdf")) + \
        sorted((root / "bench" / "data" / "papers-more" / "papers").glob("*.pdf"))


def generate(sources: list[Path], count: int, folder: Path, seed: int = 7) -> list[Path]:
    """`count` distinct PDFs of 3-6 consecutive real pages each, stamped with their number."""
    import pymupdf

    rng = random.Random(seed)
    folder.mkdir(parents=True, exist_ok=True)
    docs = [pymupdf.open(p) for p in sources]
    out = []
    try:
        for n in range(count):
            src = docs[n % len(docs)]
            pages = min(src.page_count, rng.randint(3, 6))
            start = rng.randint(0, max(0, src.page_count - pages))
            doc = pymupdf.open()
            doc.insert_pdf(src, from_page=start, to_page=start + pages - 1)
            doc[0].insert_text((36, 20), f"Generated paper {n} of the import benchmark", fontsize=8)
            path = folder / f"generated-{n:04d}.pdf"
            doc.save(path, deflate=True)
            doc.close()
            out.append(path)
    finally:
        for d in docs:
            d.close()
    return out


def _env(home: Path) -> dict[str, str]:
    return {**os.environ, "PAPERDESK_HOME": str(home), "PAPERDESK_OFFLINE": "1"}


def _run(args: list[str], home: Path) -> tuple[float, int]:
    """Seconds and the child's peak RSS (KiB) of `paperdesk ARGS`."""
    start = time.perf_counter()
    child = subprocess.Popen([sys.executable, "-m", "paperdesk", *args], env=_env(home), stdout=subprocess.DEVNULL,
                             stderr=subprocess.DEVNULL)
    _, _, usage = os.wait4(child.pid, 0)  # this child's own peak memory
    child.returncode = 0
    return time.perf_counter() - start, usage.ru_maxrss


def _pages(paths: list[Path]) -> int:
    import pymupdf

    total = 0
    for p in paths:
        with pymupdf.open(p) as doc:
            total += doc.page_count
    return total


def _count(home: Path) -> tuple[int, list[str]]:
    from paperdesk.core.config import load_settings
    from paperdesk.core.library.library import Library

    library = Library(load_settings(environ={"PAPERDESK_HOME": str(home)}, path=home / "absent.toml"))
    try:
        return library.store.count_papers(), library.integrity_problems()
    finally:
        library.close()


def _search_figures(home: Path) -> dict[str, float]:
    from paperdesk.core.config import load_settings
    from paperdesk.core.library.library import Library

    library = Library(load_settings(environ={"PAPERDESK_HOME": str(home)}, path=home / "absent.toml"))
    try:
        library.embedder.model()
        library.search(QUERIES[0], k=10)  # indexes loaded
        times = []
        for q in QUERIES:
            start = time.perf_counter()
            library.search(q, k=10)
            times.append((time.perf_counter() - start) * 1000)
    finally:
        library.close()
    list_s, _ = _run(["list"], home)
    times.sort()
    return {"search_p50_ms": round(statistics.median(times), 1),
            "search_p95_ms": round(times[min(len(times) - 1, int(0.95 * len(times)))], 1),
            "list_s": round(list_s, 2)}


def interrupt_trial(pdfs: list[Path], home: Path, rng: random.Random) -> dict[str, Any]:
    """SIGINT at a random moment of a batch, then the same batch again: each paper exactly once."""
    folder = pdfs[0].parent
    child = subprocess.Popen([sys.executable, "-m", "paperdesk", "add", str(folder)], env=_env(home),
                             stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    delay = rng.uniform(5, 25)
    time.sleep(delay)
    child.send_signal(signal.SIGINT)
    child.wait(120)
    kept, _ = _count(home)
    _run(["add", str(folder)], home)
    papers, problems = _count(home)
    return {"interrupted_after_s": round(delay, 1), "kept_at_interrupt": kept, "papers_after_rerun": papers,
            "expected": len(pdfs), "exactly_once": papers == len(pdfs) and not problems, "problems": problems}


def run(args: argparse.Namespace, settings: Settings) -> int:
    rng = random.Random(args.seed)
    real = real_pdfs()
    report: dict[str, Any] = {}
    lines: list[str] = []
    with tempfile.TemporaryDirectory(prefix="paperdesk-import-") as tmp:
        root = Path(tmp)
        folder = root / "real"
        folder.mkdir()
        for p in real:
            os.symlink(p, folder / p.name)
        pages = _pages(real)
        note(f"baseline: {len(real)} papers, one `paperdesk add` each ...")
        start = time.perf_counter()
        peak_one = 0
        for p in real:
            peak_one = max(peak_one, _run(["add", str(p)], root / "one-by-one")[1])
        one_s = time.perf_counter() - start
        note("the same papers in one `paperdesk add DIR` ...")
        batch_s, peak_batch = _run(["add", str(folder)], root / "batch")
        count, problems = _count(root / "batch")
        report["real"] = {"papers": len(real), "pages": pages, "added": count, "problems": problems,
                          "one_by_one_s": round(one_s, 1), "batch_s": round(batch_s, 1),
                          "one_by_one_papers_per_min": round(60 * len(real) / one_s, 1),
                          "batch_papers_per_min": round(60 * len(real) / batch_s, 1),
                          "ratio": round(one_s / batch_s, 2), "batch_pages_per_s": round(pages / batch_s, 1),
                          "peak_rss_mb": round(peak_batch / 1024), "one_by_one_peak_rss_mb": round(peak_one / 1024)}
        r = report["real"]
        lines += [f"real set: {r['papers']} papers, {r['pages']} pages",
                  f"  one `paperdesk add` per paper: {r['one_by_one_s']} s ({r['one_by_one_papers_per_min']} papers/min)",
                  f"  one `paperdesk add DIR`:       {r['batch_s']} s ({r['batch_papers_per_min']} papers/min, "
                  f"{r['batch_pages_per_s']} pages/s), {r['ratio']}x faster; peak memory {r['peak_rss_mb']} MB "
                  f"(one add: {r['one_by_one_peak_rss_mb']} MB)",
                  f"  library afterwards: {count} papers, problems: {problems or 'none'}"]
        if args.generated:
            note(f"generating {args.generated} PDFs from real pages ...")
            made = generate(real, args.generated, root / "generated")
            gen_pages = _pages(made)
            note("adding them in one run ...")
            gen_s, peak = _run(["add", str(root / "generated")], root / "big")
            count, problems = _count(root / "big")
            figures = _search_figures(root / "big")
            report["generated"] = {"papers": len(made), "pages": gen_pages, "added": count, "problems": problems,
                                   "seconds": round(gen_s, 1), "papers_per_min": round(60 * len(made) / gen_s, 1),
                                   "pages_per_s": round(gen_pages / gen_s, 1), "peak_rss_mb": round(peak / 1024),
                                   **figures}
            g = report["generated"]
            lines += [f"generated set: {g['papers']} papers, {g['pages']} pages in {g['seconds']} s "
                      f"({g['papers_per_min']} papers/min, {g['pages_per_s']} pages/s); {count} in the library",
                      f"  search over them: p50 {g['search_p50_ms']} ms, p95 {g['search_p95_ms']} ms; "
                      f"`paperdesk list` {g['list_s']} s"]
        note("Ctrl-C at a random moment, then the same add again ...")
        trial_set = generate(real, args.interrupt_papers, root / "interrupt", seed=args.seed + 1)
        report["interrupt"] = interrupt_trial(trial_set, root / "interrupted", rng)
        t = report["interrupt"]
        lines.append(f"Ctrl-C after {t['interrupted_after_s']} s: {t['kept_at_interrupt']} kept; after the re-run "
                     f"{t['papers_after_rerun']} of {t['expected']} papers, each once: {t['exactly_once']}")
    emit(report, args.json, lines)
    return 0
