"""`paperdesk bench research --papers-more`: six research questions over one library of all 30 bench papers.

Each question asks about two or more papers of bench/data/papers-more; three
are on papers of the answer benchmark's tune half, three on its check half
(qa_split). A question is researched as `paperdesk research` does it (the
planner's plan, its steps, the agent loop, the check, the report) and the
report is read by report_check, written apart from the report's own gates:
per question, the supported cited sentences and the papers they come from
(goal: >= 3 from >= 2 papers), vacuous cited sentences (goal: 0), sentences
copying a run of a prompt template (leaked, goal: 0), the agent
loop's extra calls and how many of them gave a passage a supported sentence
cites, the steps that failed, and the time.
"""

from __future__ import annotations

import argparse
import shutil
import tempfile
import time
from pathlib import Path
from typing import Any

from paperdesk.bench.common import emit, note
from paperdesk.bench.qa_split import library_pdfs
from paperdesk.bench.report_check import check
from paperdesk.core.config import Settings

# (half, question, the papers that hold an answer: file names in bench/data/papers-more/papers)
QUESTIONS: tuple[tuple[str, str, tuple[str, ...]], ...] = (
    ("tune", "How do the flexmix and fitdistrplus packages estimate the parameters of their models?",
     ("r-cran-flexmix__flexmix-intro.pdf", "r-cran-fitdistrplus__paper2JSS.pdf")),
    ("tune", "How do the coin and party packages use permutation tests?",
     ("r-cran-coin__LegoCondInf.pdf", "r-cran-party__party.pdf")),
    ("tune", "How do the multcomp and gmm packages report inference for the estimated parameters?",
     ("r-cran-multcomp__generalsiminf.pdf", "r-cran-gmm__gmm_with_R.pdf")),
    ("check", "How do the Rcpp and spam packages make computations in R faster?",
     ("r-cran-rcpp__Rcpp-jss-2011.pdf", "r-cran-spam__jss15.pdf")),
    ("check", "Which regression models do the pscl and quantreg packages fit, and how?",
     ("r-cran-pscl__countreg.pdf", "r-cran-quantreg__rq.pdf")),
    ("check", "How do the zoo and strucchange packages handle time series data?",
     ("r-cran-zoo__zoo.pdf", "r-cran-strucchange__strucchange-intro.pdf")),
)


def _extra_calls(result: Any, tracker: Any, cited_chunks: set[int]) -> tuple[int, int]:
    """(the agent loop's calls, those whose passages a supported sentence cites and no planned step found)."""
    from paperdesk.core.research.agent_loop import EXTRA_BASE

    if result.run_id is None:
        return 0, 0
    tasks = tracker.tasks(result.run_id)
    planned = {int(p["chunk_id"]) for t in tasks if t.step_id < EXTRA_BASE and isinstance(t.result, dict)
               for p in t.result.get("passages", []) + t.result.get("sources", [])}
    calls = [t for t in tasks if t.step_id >= EXTRA_BASE]
    added = sum(1 for t in calls if isinstance(t.result, dict)
                and {int(p["chunk_id"]) for p in t.result.get("passages", []) + t.result.get("sources", [])}
                & (cited_chunks - planned))
    return len(calls), added


def run(args: argparse.Namespace, settings: Settings) -> int:
    from paperdesk.bench.qa import library_home
    from paperdesk.core.library.library import Library
    from paperdesk.core.research import Researcher, Tracker, load_backends

    pdfs = library_pdfs()
    cached, ids = library_home(settings, pdfs)
    rows: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory(prefix="paperdesk-bench-") as tmp:
        home = Path(tmp) / "library"
        shutil.copytree(cached, home)  # research stores its runs: the cached library stays as built
        library = Library(settings.with_overrides(home=str(home), offline=True))
        library.embedder.model()
        backends = load_backends(library.settings)
        for backend in {id(b): b for b in (backends.writer, backends.planner) if b is not None}.values():
            getattr(backend, "llama", lambda: None)()  # loaded outside the timings, as the app holds them
        tracker = Tracker.for_library(library)
        researcher = Researcher(library, backends, tracker)
        titles = {pid: name for name, pid in ids.items()}
        for half, question, holders in QUESTIONS[: args.only or None]:
            note(f"researching ({half}): {question}")
            start = time.perf_counter()
            result = researcher.research(question)
            seconds = time.perf_counter() - start
            found = check(result.report, question, result.citations,
                          lambda pid, page: library.store.page_text(pid, page) or "")
            calls, added = _extra_calls(result, tracker, found.chunks)
            papers = sorted(titles.get(p, p) for p in found.papers)
            rows.append({
                "half": half, "question": question, "seconds": round(seconds, 1),
                "plan": [f"{s.id} {s.tool}" for s in result.plan.steps], "planner": result.plan.made_by,
                "cited_sentences": found.sentences, "supported": found.supported, "papers": len(papers),
                "holders_cited": sum(1 for h in holders if h in papers), "vacuous": found.vacuous,
                "leaked": found.leaked,
                "extra_calls": calls, "extra_calls_cited": added,
                "failed_steps": [f"{s['id']} {s['tool']}: {s['error']}" for s in result.steps
                                 if s["status"] == "FAILED"],
                "fallback": result.fallback, "unanswered": result.unanswered,
                **({"report": result.report, "unsupported": found.unsupported_text, "vacuous_text": found.vacuous_text,
                    "leaked_text": found.leaked_text,
                    "cited_papers": papers} if half == "tune" else {}),
            })
            note(f"  {seconds:.0f} s: {found.supported}/{found.sentences} supported from {len(papers)} papers, "
                 f"{found.vacuous} vacuous, {found.leaked} leaked, {calls} extra calls ({added} cited)")
        library.close()
    goal = [r for r in rows if r["supported"] >= 3 and r["papers"] >= 2 and r["vacuous"] == 0 and r["leaked"] == 0]
    report = {"questions": rows, "met_goal": len(goal), "of": len(rows), "leaked": sum(r["leaked"] for r in rows),
              "writer": getattr(getattr(backends.writer, "model_path", None), "stem", "remote")}
    lines = [f"{len(rows)} research questions over {len(pdfs)} papers (writer {report['writer']}); "
             "goal per report: >= 3 supported cited sentences from >= 2 papers, 0 vacuous, 0 leaked",
             f"{'half':<6} {'time':>6} {'supported':>10} {'papers':>7} {'vacuous':>8} {'leaked':>7} {'extra calls':>12} "
             f"{'failed':>7}  question"]
    for r in rows:
        lines.append(f"{r['half']:<6} {r['seconds']:>5.0f}s {r['supported']:>4}/{r['cited_sentences']:<5} "
                     f"{r['papers']:>7} {r['vacuous']:>8} {r['leaked']:>7} {r['extra_calls']:>6} ({r['extra_calls_cited']} cited) "
                     f"{len(r['failed_steps']):>7}  {r['question'][:70]}")
    lines.append(f"met the goal: {len(goal)}/{len(rows)}; leaked sentences: {report['leaked']}")
    emit(report, args.json, lines)
    return 0


__all__ = ["QUESTIONS", "run"]
