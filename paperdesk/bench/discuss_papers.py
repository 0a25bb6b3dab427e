"""`bench discuss` over several papers: one library holding them all, one discussion (N, K) of each.

Per paper: the discussion's time, the questions the writer model phrased (of
N; the rest are template questions), the questions that repeat an earlier one
(discuss_check.repeated), the "not found" answers and how many of them the
paper answers after all (discuss_answerable, a check apart from the teacher's),
the teacher sentences that cite another paper, and the share of stored teacher
sentences their cited page supports (discuss_check.supported), and the
questions and answer sentences that copy a run of six words from a prompt
template (leaked; the annotated summary is drawn from them); then the
totals, the writer model, and the machine's load average before and after.
"""

from __future__ import annotations

import argparse
import os
import shutil
import tempfile
from pathlib import Path
from typing import Any, Sequence

from paperdesk.bench.common import emit, note, timed
from paperdesk.bench.discuss_answerable import answer_sentence
from paperdesk.bench.discuss_check import _MARK, repeated, split, supported
from paperdesk.core.config import Settings
from paperdesk.core.discussion import Discussion, Event
from paperdesk.core.library.library import Library
from paperdesk.core.memory import MemoryGraph
from paperdesk.core.prompt_leaks import leaks


def run_all(args: argparse.Namespace, settings: Settings, files: Sequence[Path], built: Path | None = None,
            discussed: Sequence[str] = ()) -> int:
    """Discuss each of `files` in a new library of them; or, with `built` (a library's data dir, copied
    first), each paper of it whose id is in `discussed`."""
    files = list(files)[: args.only] if getattr(args, "only", 0) else list(files)
    discussed = list(discussed)[: args.only] if getattr(args, "only", 0) else list(discussed)
    load_before = os.getloadavg()
    rows: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory(prefix="paperdesk-bench-") as tmp:
        if built is not None:
            shutil.copytree(built, Path(tmp) / "library")
        settings = settings.with_overrides(home=str(Path(tmp) / "library") if built else tmp, offline=True)
        library = Library(settings)
        if built is not None:
            ingest_s, added = 0.0, [library.get(pid) for pid in discussed]
        else:
            ingest_s, added = timed(lambda: [library.add_pdf(f).paper for f in files])
        from paperdesk.core.llm.factory import make_backend
        from paperdesk.core.llm.models import resolve_writer

        writer = resolve_writer(settings).name if settings["llm.backend"] != "remote" else "remote"
        backend = make_backend(settings)
        load_s, _ = timed(lambda: getattr(backend, "llama", lambda: None)())
        memory = MemoryGraph.for_library(library)
        discussion = Discussion(library, backend, memory)
        for paper in added:
            def progress(event: Event, pid: str = paper.id) -> None:
                if event.kind == "turn":
                    note(f"{pid}: turn {event.turn}/{event.total} stored")

            result = discussion.run(paper.id, args.turns, args.every, on_event=progress)
            page_text = lambda pid, page: library.store.page_text(pid, page) or ""  # noqa: E731
            good, checked = supported([t.answer for t in result.turns], paper.id, page_text)
            pages = [page_text(paper.id, n) for n in range(1, (paper.page_count or 0) + 1)]
            missed = [t.question for t in result.turns if t.not_found and answer_sentence(t.question, pages)]
            rows.append({
                "paper": paper.id, "title": paper.title[:60], "status": result.status,
                "total_s": round(result.timings.get("total_s", 0.0), 1), "turns": len(result.turns),
                "phrased": sum(1 for t in result.turns if t.phrased),
                "repeated": repeated([t.question for t in result.turns]),
                "not_found": sum(1 for t in result.turns if t.not_found),
                "not_found_answerable": len(missed),
                "other_paper": other_paper([t.answer for t in result.turns], paper.id),
                "supported": good, "sentences": checked,
                "leaked": leaked([t.question for t in result.turns], [t.answer for t in result.turns]),
                "template_reasons": [t.question_check for t in result.turns if not t.phrased],
                "roles_s": {k: round(v, 1) for k, v in result.timings.items() if k != "total_s"},
                "answers": [t.answer for t in result.turns],
                "questions": [t.question for t in result.turns],
            })
            note(f"{paper.id}: {rows[-1]['total_s']} s, {rows[-1]['phrased']}/{len(result.turns)} phrased, "
                 f"{good}/{checked} supported")
        discussion.close()
        memory.close()
        library.close()
    load_after = os.getloadavg()
    total = {k: sum(r[k] for r in rows) for k in ("total_s", "turns", "phrased", "repeated", "not_found",
                                                  "not_found_answerable", "other_paper", "supported", "sentences",
                                                  "leaked")}
    report = {"writer": writer, "turns": args.turns, "every": args.every, "cores": os.cpu_count(),
              "ingest_s": round(ingest_s, 1), "model_load_s": round(load_s, 1), "papers": rows,
              "totals": {**total, "total_s": round(total["total_s"], 1),
                         "supported_share": round(total["supported"] / total["sentences"], 3)
                         if total["sentences"] else 0.0},
              "load_average_before": [round(x, 1) for x in load_before],
              "load_average_after": [round(x, 1) for x in load_after]}
    lines = [f"{len(rows)} papers, N={args.turns}, K={args.every}, writer {writer}, {report['cores']} cores; "
             f"ingest {report['ingest_s']} s and model load {report['model_load_s']} s (not in the times)",
             f"{'paper':<22} {'time':>8} {'phrased':>8} {'repeated':>9} {'not found':>10} {'(answerable)':>13} "
             f"{'other paper':>12} {'supported':>14} {'leaked':>7}"]
    for r in rows + [{"paper": "total", **total}]:
        share = f"{r['supported']}/{r['sentences']} ({r['supported'] / r['sentences']:.0%})" if r["sentences"] \
            else "0/0"
        lines.append(f"{r['paper']:<22} {r['total_s']:>7.1f}s {r['phrased']:>4}/{r['turns']:<3} {r['repeated']:>9} "
                     f"{r['not_found']:>10} {r['not_found_answerable']:>13} {r['other_paper']:>12} {share:>14} "
                     f"{r['leaked']:>7}")
    lines.append(f"load average before {report['load_average_before']}, after {report['load_average_after']} "
                 f"(above {report['cores']} means other work shared these cores and inflated the times)")
    emit(report, args.json, lines)
    return 0


def leaked(questions: Sequence[str], answers: Sequence[str]) -> int:
    """Questions and answer sentences that copy a run of six words from a prompt template."""
    return sum(leaks(q) for q in questions) + sum(leaks(s) for a in answers for s in split(a))


def other_paper(answers: Sequence[str], own: str) -> int:
    """Teacher sentences that cite a page of another paper ([ID, p. N] with ID not the discussed paper)."""
    return sum(1 for answer in answers for sentence in split(answer)
               if any((m.group("paper") or own).strip() != own for m in _MARK.finditer(sentence)))
