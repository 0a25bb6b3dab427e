"""`paperdesk bench discuss`: full discussions (N=10, K=3) of the four fixture papers, or of one PDF.

With `--papers-more`: four held-out papers (HELD_OUT, two of each half of
the answer benchmark) in one library of all 30 bench papers.
With no file: the four fixture papers in one fresh temporary library (so a
passage of another paper can be cited, and must be credited to it), one
discussion each; per paper the time, the questions the model phrased (of N),
the repeated questions, and the share of stored teacher sentences their cited
page supports (discuss_check.py, a check apart from the teacher's gate), then
the totals. `--writer NAME` picks the writer model (a catalogue name or GGUF
path; default: the configured writer).

With a file (the single-paper mode): in a fresh temporary library, ingest the
paper (timed apart), load the model (timed apart), then run the discussion with
the memory graph and no network.
Prints the time per role (student: choosing and phrasing questions; teacher:
retrieval, generation, grounding; observer: insights and the summary; memory:
graph writes), the total (goal: at most 4 minutes on 2 cores), the share of
the teacher's sentences that carry a checked citation, and the machine's load
average before and after, so a reader can tell whether other work inflated it.
`--baseline` first runs the same discussion without the prompt-prefix cache
(llm/prompt_cache.py) in the same process, and prints the ratio.
"""

from __future__ import annotations

import argparse
import os
import tempfile
from pathlib import Path

from paperdesk.bench.common import emit, note, timed
from paperdesk.bench.discuss_check import repeated, supported
from paperdesk.core.config import Settings
from paperdesk.core.discussion import Discussion, Event
from paperdesk.core.discussion.teacher import ANY_CITE, sentences
from paperdesk.core.library.library import Library
from paperdesk.core.memory import MemoryGraph

DEFAULT_PAPER = Path(__file__).resolve().parents[2] / "tests" / "fixtures" / "papers" / "2302.07302v1.pdf"
# --papers-more: two papers of each half of the held-out answer benchmark (qa_split), discussed in one
# library of all 30 bench papers, so another paper's passage is always at hand to be misused
HELD_OUT = ("papers-cli__bg-8-515-2011.pdf",  # tune: ice-edge blooms
            "paper-qa__paper.pdf",  # tune: explanations of molecular prediction models
            "refextract__1707.04066v1.pdf",  # check: near-Earth objects
            "refextract__2110.02751.pdf")  # check: nuclear recoils


def run(args: argparse.Namespace, settings: Settings) -> int:
    if getattr(args, "writer", None):
        settings = settings.with_overrides(llm__writer_model=args.writer)
    if getattr(args, "papers_more", False):
        from paperdesk.bench.discuss_papers import run_all
        from paperdesk.bench.qa import library_home
        from paperdesk.bench.qa_split import library_pdfs

        home, ids = library_home(settings, library_pdfs())
        return run_all(args, settings, [], built=home, discussed=[ids[name] for name in HELD_OUT])
    if args.file is None:
        from paperdesk.bench.discuss_papers import run_all

        return run_all(args, settings, sorted(DEFAULT_PAPER.parent.glob("*.pdf")))
    paper_file = args.file
    if not paper_file.is_file():
        from paperdesk.core.errors import PdfError

        raise PdfError(f"no such file: {paper_file}; pass a PDF to discuss")
    load_before = os.getloadavg()
    with tempfile.TemporaryDirectory(prefix="paperdesk-bench-") as tmp:
        settings = settings.with_overrides(home=tmp, offline=True)
        library = Library(settings)
        ingest_s, added = timed(lambda: library.add_pdf(paper_file))
        from paperdesk.core.llm.factory import make_backend

        backend = make_backend(settings)
        load_s, _ = timed(lambda: getattr(backend, "llama", lambda: None)())
        memory = MemoryGraph.for_library(library)

        def progress(event: Event) -> None:
            if event.kind == "turn":
                note(f"turn {event.turn}/{event.total} stored")

        baseline = None
        if getattr(args, "baseline", False):  # the same run without the prompt-prefix cache, first
            note("baseline: the same discussion without the prompt-prefix cache")
            before = Discussion(library, backend, memory, prompt_cache=False)
            baseline = before.run(added.paper.id, args.turns, args.every, on_event=progress).timings
            before.close()
            memory.delete_entities([e.name for e in memory.export().entities])  # the measured run starts empty too
        discussion = Discussion(library, backend, memory)
        result = discussion.run(added.paper.id, args.turns, args.every, on_event=progress)
        good, checked = supported([t.answer for t in result.turns], added.paper.id,
                                  lambda pid, page: library.store.page_text(pid, page) or "")
        entities = memory.count()
        memory.close()
        discussion.close()
        library.close()
    load_after = os.getloadavg()
    parts = [s for t in result.turns for s in sentences(t.answer)]
    cited = sum(1 for s in parts if ANY_CITE.search(s))
    t = result.timings
    report = {
        "paper": paper_file.name, "pages": added.paper.page_count, "turns": args.turns, "every": args.every,
        "cores": os.cpu_count(), "status": result.status,
        "ingest_s": round(ingest_s, 1), "model_load_s": round(load_s, 1),
        **{k: round(v, 1) for k, v in t.items()},
        "per_turn_s": round(t["total_s"] / max(1, len(result.turns)), 1),
        "teacher_sentences": len(parts), "teacher_sentences_cited": cited,
        "cited_share": round(cited / len(parts), 3) if parts else 0.0,
        "questions_phrased_by_model": sum(1 for x in result.turns if x.phrased),
        "questions_repeated": repeated([x.question for x in result.turns]),
        "teacher_sentences_supported": good, "teacher_sentences_checked": checked,
        "supported_share": round(good / checked, 3) if checked else 0.0,
        "memory_entities": entities,
        "questions": [{"question": x.question, "phrased": x.phrased, "why_template": x.question_check}
                      for x in result.turns],
        "answers": [x.answer for x in result.turns],
        "prompt_cache": True,
        **({f"baseline_{k}": round(v, 1) for k, v in baseline.items()} if baseline else {}),
        "load_average_before": [round(x, 1) for x in load_before],
        "load_average_after": [round(x, 1) for x in load_after],
    }
    lines = [
        f"{report['paper']} ({report['pages']} pages), N={args.turns}, K={args.every}, {report['cores']} cores: "
        f"{result.status}",
        f"ingest {report['ingest_s']} s and model load {report['model_load_s']} s (not in the total)",
        f"student  {report['student_s']:7.1f} s   ({report['questions_phrased_by_model']}/{len(result.turns)} "
        "questions phrased by the model, the rest from templates)",
        f"teacher  {report['teacher_s']:7.1f} s",
        f"observer {report['observer_s']:7.1f} s",
        f"memory   {report['memory_s']:7.1f} s   ({entities} entities after the run)",
        f"total    {report['total_s']:7.1f} s   ({report['per_turn_s']} s per turn; goal: <= 240 s on 2 cores)",
        f"teacher sentences with a checked citation: {cited}/{len(parts)} ({report['cited_share']:.0%})",
        f"teacher sentences their cited page supports (bench's own check): {good}/{checked} "
        f"({report['supported_share']:.0%}); repeated questions: {report['questions_repeated']}",
        f"load average before {report['load_average_before']}, after {report['load_average_after']} "
        f"(above {report['cores']} means other work shared these cores and inflated the times)",
    ]
    if baseline:
        lines.insert(-2, "same run without the prompt-prefix cache (baseline): " + ", ".join(
            f"{role} {baseline.get(role + '_s', 0.0):.1f} s" for role in ("student", "teacher", "observer", "memory",
                                                                           "total")) +
            f" -> {t['total_s'] / max(baseline.get('total_s', 0.0), 1e-9):.2f}x")
    emit(report, args.json, lines)
    return 0
