"""`bench discuss` over several papers: one library holding them all, one discussion (N, K) of each.

Per paper: the discussion's time, the questions the writer model phrased (of
N; the rest are template questions), the questions that repeat an earlier one
(discuss_check.repeated), and the share of stored teacher sentences their
cited page supports (discuss_check.supported); then the totals, the writer
model, and the machine's load average before and after.
"""

from __future__ import annotations

import argparse
import os
import tempfile
from pathlib import Path
from typing import Any, Sequence

from paperdesk.bench.common import emit, note, timed
from paperdesk.bench.discuss_check import repeated, supported
from paperdesk.core.config import Settings
from paperdesk.core.discussion import Discussion, Event
from paperdesk.core.library.library import Library
from paperdesk.core.memory import MemoryGraph


def run_all(args: argparse.Namespace, settings: Settings, files: Sequence[Path]) -> int:
    files = list(files)[: args.only] if getattr(args, "only", 0) else list(files)
    load_before = os.getloadavg()
    rows: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory(prefix="paperdesk-bench-") as tmp:
        settings = settings.with_overrides(home=tmp, offline=True)
        library = Library(settings)
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
            good, checked = supported([t.answer for t in result.turns], paper.id,
                                      lambda pid, page: library.store.page_text(pid, page) or "")
            rows.append({
                "paper": paper.id, "title": paper.title[:60], "status": result.status,
                "total_s": round(result.timings.get("total_s", 0.0), 1), "turns": len(result.turns),
                "phrased": sum(1 for t in result.turns if t.phrased),
                "repeated": repeated([t.question for t in result.turns]),
                "not_found": sum(1 for t in result.turns if t.not_found),
                "supported": good, "sentences": checked,
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
                                                  "supported", "sentences")}
    report = {"writer": writer, "turns": args.turns, "every": args.every, "cores": os.cpu_count(),
              "ingest_s": round(ingest_s, 1), "model_load_s": round(load_s, 1), "papers": rows,
              "totals": {**total, "total_s": round(total["total_s"], 1),
                         "supported_share": round(total["supported"] / total["sentences"], 3)
                         if total["sentences"] else 0.0},
              "load_average_before": [round(x, 1) for x in load_before],
              "load_average_after": [round(x, 1) for x in load_after]}
    lines = [f"{len(rows)} papers, N={args.turns}, K={args.every}, writer {writer}, {report['cores']} cores; "
             f"ingest {report['ingest_s']} s and model load {report['model_load_s']} s (not in the times)",
             f"{'paper':<22} {'time':>8} {'phrased':>8} {'repeated':>9} {'not found':>10} {'supported':>14}"]
    for r in rows + [{"paper": "total", **total}]:
        share = f"{r['supported']}/{r['sentences']} ({r['supported'] / r['sentences']:.0%})" if r["sentences"] \
            else "0/0"
        lines.append(f"{r['paper']:<22} {r['total_s']:>7.1f}s {r['phrased']:>4}/{r['turns']:<3} {r['repeated']:>9} "
                     f"{r['not_found']:>10} {share:>14}")
    lines.append(f"load average before {report['load_average_before']}, after {report['load_average_after']} "
                 f"(above {report['cores']} means other work shared these cores and inflated the times)")
    emit(report, args.json, lines)
    return 0
