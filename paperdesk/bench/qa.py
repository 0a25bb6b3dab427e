"""`paperdesk bench qa --questions FILE`: paper-QA accuracy, on-target citations and answer time, per model.

A question file is JSON Lines, one question a line:

    {"id": "lexsum-1", "paper": "2206.10883v3.pdf", "question": "How many ...?",
     "answer": ["9,?280"], "pages": [1, 25]}

`paper` is a PDF file name (looked up beside the question file in `papers/`, or
in --papers), `answer` the regexes every correct answer matches (case-insensitive,
after the [n] citation markers are removed), `pages` the pages of that paper
that state the answer. Each question goes through the same path as
`paperdesk ask --json` (search, write, ground), in a library of the papers
built once and reused while the PDFs and the ingest code are unchanged.

Per question: correct (every regex matches), on target (a cited passage of
that paper spans a supporting page), time. Per model: accuracy, on-target
share, median time, side by side in one run.

With --split tune|check the questions are the held-out set's (bench/qa_split.py): the fixture
questions, bench/data/papers-more's, and one `absent` question a paper (no paper answers it: correct means
the answer says so and states no figure as the answer), all asked against one library of the 30 papers.
Totals come per kind and per paper; the check half prints nothing else, so it cannot be tuned on. Every
shown answer is also checked for a run of six words copied from a prompt template (`leaked`).

With --evidence no model runs: each question's evidence (the passages and
windows the writer would read) is checked instead: does it hold the answer
(every regex matches the windows together), and does a window on a supporting
page hold it? An answer cannot be better than its evidence, so this measures
search and re-ranking on their own, in seconds. With answer.judge on and --models naming a writer, that
writer judges the candidate sentences first, as its answers would have it.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import re
import statistics
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from paperdesk.bench.common import emit, note
from paperdesk.core.config import Settings
from paperdesk.core.errors import PaperdeskError

MARKER = re.compile(r"\s?\[\d{1,2}\]")
ABSENT = "absent"
# what an answer that says the papers do not hold the answer starts with
SAYS_NOT_FOUND = re.compile(
    r"\b(?:not (?:found|stated|given|reported|mentioned|covered|answered) (?:in|by)|not in) (?:your |these |the |any )?"
    r"(?:papers?|passages?|library|sources?)\b|\bnothing in your library\b|"
    r"\b(?:no|none of the) (?:paper|passage|source)s? (?:in your library |here )?(?:answers|states|gives|reports)\b",
    re.I)


class QuestionFileError(PaperdeskError):
    """A question file line that is not a usable question."""


@dataclass(frozen=True)
class Question:
    id: str
    paper: str  # the PDF's file name
    question: str
    answer: tuple[str, ...]  # regexes every correct answer matches
    pages: tuple[int, ...]  # pages of `paper` that support the answer
    kind: str = ""


def load_questions(path: Path) -> list[Question]:
    """Parse a question file; QuestionFileError naming the line and what is wrong."""
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except OSError as exc:
        raise QuestionFileError(f"cannot read question file {path}: {exc.strerror}") from None
    out: list[Question] = []
    seen: set[str] = set()
    for no, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        where = f"{path.name} line {no}"
        try:
            row = json.loads(line)
        except json.JSONDecodeError as exc:
            raise QuestionFileError(f"{where}: not JSON ({exc.msg}); write one JSON object per line") from None
        if not isinstance(row, dict):
            raise QuestionFileError(f"{where}: expected a JSON object")
        missing = [k for k in ("paper", "question", "answer", "pages") if k not in row]
        if missing:
            raise QuestionFileError(f"{where}: missing {', '.join(missing)}")
        kind = str(row.get("kind", ""))
        answer = [row["answer"]] if isinstance(row["answer"], str) else row["answer"]
        if kind == ABSENT:  # no paper answers it: no regexes, no pages
            if answer or row["pages"]:
                raise QuestionFileError(f"{where}: an absent question has no answer regexes and no pages")
        elif not answer or not all(isinstance(a, str) and a for a in answer):
            raise QuestionFileError(f"{where}: answer must be a regex or a non-empty list of regexes")
        for pattern in answer:
            try:
                re.compile(pattern)
            except re.error as exc:
                raise QuestionFileError(f"{where}: bad regex {pattern!r} ({exc})") from None
        pages = row["pages"]
        if kind != ABSENT and not pages or not all(isinstance(p, int) and p >= 1 for p in pages):
            raise QuestionFileError(f"{where}: pages must be a non-empty list of page numbers (from 1)")
        if not str(row["question"]).strip():
            raise QuestionFileError(f"{where}: empty question")
        qid = str(row.get("id") or f"q{no}")
        if qid in seen:
            raise QuestionFileError(f"{where}: id {qid} is used twice")
        seen.add(qid)
        out.append(Question(qid, str(row["paper"]), str(row["question"]).strip(), tuple(answer),
                            tuple(pages), kind))
    if not out:
        raise QuestionFileError(f"{path.name}: no questions")
    return out


def says_not_found(text: str) -> bool:
    """The answer opens by saying the papers do not hold it (its first sentence, or what comes before a quote)."""
    head = re.split(r"(?<=[.:;])\s", " ".join(MARKER.sub("", text).split()), maxsplit=1)[0]
    return bool(SAYS_NOT_FOUND.search(head))


def honest(text: str) -> bool:
    """For an absent question: the answer says the papers do not hold it and gives no figure as the answer
    (the passages it quotes after saying so are context, not the answer)."""
    if not says_not_found(text):
        return False
    head = re.split(r"(?<=[.:;])\s", " ".join(MARKER.sub("", text).split()), maxsplit=1)[0]
    return not re.search(r"\d", head)


def is_correct(text: str, question: Question) -> bool:
    """Every regex of the question matches the answer (citation markers removed, case-insensitive), and the
    answer does not say the papers lack it (a not-found answer quoting a passage that happens to hold the
    figure is not an answer); an absent question's answer is correct when it is honest."""
    if question.kind == ABSENT:
        return honest(text)
    if says_not_found(text):
        return False
    plain = MARKER.sub("", text)
    return all(re.search(p, plain, re.IGNORECASE) for p in question.answer)


def on_target(citations: list[dict[str, Any]], paper_id: str, pages: tuple[int, ...]) -> bool:
    """Some cited passage is of the question's paper and spans one of its supporting pages."""
    for c in citations:
        first = c.get("page", 0)
        last = c.get("page_end", first)
        if c.get("paper_id") == paper_id and any(first <= p <= last for p in pages):
            return True
    return False


def score(result: dict[str, Any], question: Question, paper_id: str) -> dict[str, Any]:
    """One question's row from an `ask --json` result (text, citations, hits, timings)."""
    from paperdesk.core.prompt_leaks import leaks

    spans = {h["chunk_id"]: h.get("page_end", h.get("page_start")) for h in result.get("hits", [])}
    cited = [{**c, "page_end": spans.get(c.get("chunk_id"), c.get("page"))} for c in result.get("citations", [])]
    text = result.get("text", "")
    return {"id": question.id, "kind": question.kind, "paper": question.paper,
            "correct": is_correct(text, question),
            "on_target": question.kind != ABSENT and on_target(cited, paper_id, question.pages),
            "not_found": says_not_found(text), "leaked": leaks(text),
            # shown as unsure: it stands, but the writer's check of its cited passages fell short (answer_check)
            "unsure": bool(result.get("support", {}).get("unsure")),
            "cited_pages": sorted({c["page"] for c in cited if c.get("paper_id") == paper_id}),
            "time_s": round(result.get("timings", {}).get("total_s", 0.0), 2),
            "text": " ".join(result.get("text", "").split())}


def totals(rows: list[dict[str, Any]]) -> dict[str, Any]:
    """Correct over all rows; on-target citations over the answerable ones; honest over the absent ones."""
    n = len(rows) or 1
    answerable = [r for r in rows if r.get("kind") != ABSENT]
    absent = [r for r in rows if r.get("kind") == ABSENT]
    m = len(answerable) or 1
    return {"questions": len(rows), "correct": sum(r["correct"] for r in rows),
            "accuracy": round(sum(r["correct"] for r in rows) / n, 3),
            "answerable": len(answerable), "answerable_correct": sum(r["correct"] for r in answerable),
            "on_target": sum(r["on_target"] for r in answerable),
            "on_target_share": round(sum(r["on_target"] for r in answerable) / m, 3),
            "absent": len(absent), "honest": sum(r["correct"] for r in absent),
            "said_not_found": sum(bool(r.get("not_found")) for r in answerable),
            # the writer's first reading (its evidence windows) held the answer, and of those how many it got right
            "held": sum(bool(r.get("held")) for r in answerable),
            "held_correct": sum(bool(r.get("held")) and r["correct"] for r in answerable),
            "leaked": sum(bool(r.get("leaked")) for r in rows),
            # answers that stand (no "not found"), split by whether they are shown as unsure, and right among them
            "firm": sum(not r.get("not_found") and not r.get("unsure") for r in rows),
            "firm_correct": sum(not r.get("not_found") and not r.get("unsure") and r["correct"] for r in rows),
            "unsure": sum(bool(r.get("unsure")) for r in rows),
            "unsure_correct": sum(bool(r.get("unsure")) and r["correct"] for r in rows),
            "median_s": round(statistics.median([r["time_s"] for r in rows]), 2) if rows else 0.0}


def breakdown(rows: list[dict[str, Any]], key: str) -> dict[str, dict[str, Any]]:
    """totals() per value of `key` (kind, paper)."""
    groups: dict[str, list[dict[str, Any]]] = {}
    for row in rows:
        groups.setdefault(str(row.get(key, "")), []).append(row)
    return {name: totals(group) for name, group in sorted(groups.items())}


def total_line(label: str, total: dict[str, Any]) -> str:
    parts = [f"{label:40} correct {total['correct']}/{total['questions']} ({total['accuracy']:.0%})"]
    if total["answerable"]:
        parts.append(f"on-target citation {total['on_target']}/{total['answerable']} "
                     f"({total['on_target_share']:.0%})")
        if total["said_not_found"]:
            parts.append(f"said not found {total['said_not_found']}")
        if total["held"]:
            parts.append(f"read the answer {total['held']}, of them right {total['held_correct']}")
    if total["absent"]:
        parts.append(f"absent honest {total['honest']}/{total['absent']}")
    if total["unsure"]:
        parts.append(f"answers shown firm {total['firm']} (right {total['firm_correct']}), "
                     f"unsure {total['unsure']} (right {total['unsure_correct']})")
    if total["leaked"]:
        parts.append(f"leaked {total['leaked']}")
    parts.append(f"median {total['median_s']:.1f} s")
    return "   ".join(parts)


def _library_key(pdfs: list[Path]) -> str:
    """Changes when a paper or the code that turns papers into passages changes."""
    import paperdesk

    digest = hashlib.sha256()
    for pdf in sorted(pdfs):
        digest.update(pdf.name.encode() + pdf.read_bytes())
    root = Path(paperdesk.__file__).parent / "core"
    for code in sorted(path for part in ("ingest", "db", "library", "search") for path in root.glob(f"{part}/*.py")):
        digest.update(code.read_bytes())
    return digest.hexdigest()[:16]


def library_home(settings: Settings, pdfs: list[Path]) -> tuple[Path, dict[str, str]]:
    """A data dir holding `pdfs`, built once per content; and file name -> paper id."""
    from paperdesk.core.library.library import Library

    cache = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "paperdesk" / "bench-qa"
    home = cache / _library_key(pdfs)
    ids_file = home / "paper_ids.json"
    if ids_file.is_file():
        return home, json.loads(ids_file.read_text())
    home.mkdir(parents=True, exist_ok=True)
    library = Library(settings.with_overrides(home=str(home)))
    try:
        ids = {}
        for pdf in pdfs:
            note(f"adding {pdf.name} to the bench library ...")
            ids[pdf.name] = library.add_pdf(pdf).paper.id
    finally:
        library.close()
    tmp = ids_file.with_suffix(".tmp")
    tmp.write_text(json.dumps(ids))
    tmp.replace(ids_file)  # written last: its presence says the library is complete
    return home, ids


def ask_json(library: Any, backend: Any, settings: Settings, question: str) -> dict[str, Any]:
    """What `paperdesk ask --json QUESTION` prints, for this library and backend."""
    from paperdesk.core.agents.answer import answer, answer_options

    result = answer(library, backend, question, k=settings["answer.k"], max_tokens=settings["answer.max_tokens"],
                    memory=None, recall_k=0, **answer_options(settings))
    return result.to_json()


def evidence_row(library: Any, settings: Settings, question: Question, paper_id: str,
                 backend: Any = None) -> dict[str, Any]:
    """Whether the windows `ask` would write from hold the answer, and one on a supporting page does; and,
    to tell where a miss happens, whether search's wider candidate pool and the chosen passages' whole
    chunks held it (a search miss, a re-ranking miss, or a window that cut the sentence out). With `backend`
    (the writer) and answer.judge on, the passages and windows are those its judging gives."""
    from paperdesk.core.agents.answer import CANDIDATES, first_windows, relevant, retrieve
    from paperdesk.core.search.reader import sentence_encoder

    reader = sentence_encoder(settings, library.embedder)  # as the answer reads: the reader, when installed
    start = time.perf_counter()
    k = settings["answer.k"]
    hits = retrieve(library, question.question, k, memory=None, recall_k=0)
    chunks = library.store.chunks_by_ids([h.chunk_id for h in hits])
    full = [chunks[h.chunk_id].text for h in hits]
    if settings["answer.select"]:  # what the writer picks the answer's sentences from
        from paperdesk.core.agents.answer_selected import evidence_for

        texts = evidence_for(library, question.question, hits, full)
    elif settings["answer.reading_words"]:
        from paperdesk.core.agents.evidence import reading

        texts = reading(library, question.question, hits, full, settings["answer.reading_words"], encoder=reader)
    else:  # with a backend, the writer's judging as the answer has it (answer.judge)
        judge = settings["answer.judge"] if backend is not None else 0
        hits, full, texts = first_windows(library, backend, question.question, hits, full, reader, True, judge,
                                          settings["answer.judge_seconds"])
    elapsed = time.perf_counter() - start
    held = is_correct(" ".join(texts), question)
    read = [t for t in texts if t.strip()]  # the writer leaves out a passage with nothing (new) to read
    first = bool(read) and is_correct(read[0], question)  # the best-ranked window: answers from it come out
    # right far more often than from a later one (bench/README.md, "Where a wrong answer comes from")
    placed = any(h.paper_id == paper_id and any(h.page_start <= p <= h.page_end for p in question.pages)
                 and is_correct(t, question) for h, t in zip(hits, texts))
    pool = relevant(library.search(question.question, k=max(3 * k, CANDIDATES)))
    pool_chunks = library.store.chunks_by_ids([h.chunk_id for h in pool])
    in_pool = any(h.paper_id == paper_id and is_correct(pool_chunks[h.chunk_id].text, question) for h in pool)
    return {"id": question.id, "held": held, "first": first, "on_target": placed,
            "in_chunks": any(is_correct(t, question) for t in full), "in_pool": in_pool,
            "pages": [h.page_start for h in hits if h.paper_id == paper_id],
            "time_s": round(elapsed, 2),
            "windows": [f"p.{h.page_start} {t}" for h, t in zip(hits, texts)]}


def run_evidence(args: argparse.Namespace, questions: list[Question], settings: Settings, home: Path,
                 ids: dict[str, str]) -> int:
    from paperdesk.core.library.library import Library
    from paperdesk.core.llm.factory import make_backend

    settings = settings.with_overrides(home=str(home))
    models = [m.strip() for m in (getattr(args, "models", None) or "").split(",") if m.strip()]
    backend = None
    if models and settings["answer.judge"]:  # the first writer named judges the sentences, as its answers do
        settings = settings.with_overrides(**{"llm.model_path": "", "llm.writer_model": models[0]})
        backend = make_backend(settings)
        backend.warm_up()
    library = Library(settings)
    library.embedder.model()
    hidden = getattr(args, "split", None) == "check"
    rows = []
    for q in questions:
        if q.kind == ABSENT:  # nothing to hold
            continue
        row = {**evidence_row(library, settings, q, ids[q.paper], backend), "kind": q.kind, "paper": q.paper}
        rows.append(row)
        if not hidden:
            where = "" if row["held"] else (" (cut out of the window)" if row["in_chunks"] else
                                            " (re-ranking dropped it)" if row["in_pool"] else " (search missed it)")
            note(f"{q.id}: {'holds' if row['held'] else 'lacks'} the answer{where}, "
                 f"{'on a supporting page' if row['on_target'] else 'not on a supporting page'} {row['pages']}")
    library.close()

    def summed(group: list[dict[str, Any]]) -> dict[str, Any]:
        return {"questions": len(group), "held": sum(r["held"] for r in group),
                "first": sum(r["first"] for r in group),
                "on_target": sum(r["on_target"] for r in group),
                "in_chunks": sum(r["in_chunks"] for r in group), "in_pool": sum(r["in_pool"] for r in group),
                "median_s": round(statistics.median([r["time_s"] for r in group]), 2) if group else 0.0}

    def line(label: str, total: dict[str, Any]) -> str:
        n = total["questions"] or 1
        return (f"{label:40} evidence holds the answer {total['held']}/{total['questions']} ({total['held'] / n:.0%}),"
                f" its first window {total['first']}"
                f"   on a supporting page {total['on_target']}/{total['questions']} ({total['on_target'] / n:.0%})"
                f"   in the chosen chunks {total['in_chunks']}   in search's pool {total['in_pool']}"
                f"   median {total['median_s']:.2f} s")

    total = summed(rows)
    kinds = {k: summed([r for r in rows if r["kind"] == k]) for k in sorted({r["kind"] for r in rows})}
    papers = {k: summed([r for r in rows if r["paper"] == k]) for k in sorted({r["paper"] for r in rows})}
    lines = [line("all", total), *(line(f"  kind {k}", t) for k, t in kinds.items()),
             *(line(f"  {k[:38]}", t) for k, t in papers.items())]
    report: dict[str, Any] = {"questions": _source_names(args), "library": str(home),
                              "evidence": {"totals": total, "kinds": kinds, "papers": papers}}
    if not hidden:
        report["evidence"]["rows"] = rows
    emit(report, args.json, lines)
    return 0


def _source_names(args: argparse.Namespace) -> str:
    return f"split {args.split}" if getattr(args, "split", None) else str(args.questions)


def gather(args: argparse.Namespace) -> tuple[list[Question], list[Path]]:
    """The questions to ask and every PDF of the library they are asked against.

    --split: the held-out set's half (its library is always all 30 papers); else --questions FILE, whose
    papers are in --papers or papers/ beside it."""
    from paperdesk.bench import qa_split

    if getattr(args, "split", None):
        questions = [q for path, _ in qa_split.SETS if path.is_file() for q in load_questions(path)
                     if qa_split.half(q.paper) == args.split]
        folders = qa_split.pdf_folders()
        names = sorted(qa_split.TUNE | qa_split.CHECK)
    else:
        if args.questions is None:
            raise QuestionFileError("pass --questions FILE or --split tune|check")
        questions = load_questions(args.questions)
        folders = [args.papers or args.questions.parent / "papers"]
        names = sorted({q.paper for q in questions})
    from paperdesk.bench.qa_split import find_pdf

    found = {name: find_pdf(name, folders) for name in names}
    absent = [name for name, pdf in found.items() if pdf is None]
    if absent:
        raise QuestionFileError(f"no PDF for {', '.join(absent)} in {', '.join(map(str, folders))}; pass --papers DIR")
    return questions, [pdf for pdf in found.values() if pdf is not None]


def only_ids(questions: list[Question], wanted: str | None, split: str | None) -> list[Question]:
    """The questions `wanted` names (comma-separated ids), in the set's order; all when it is empty.
    QuestionFileError for an id the set lacks, and for the check half, whose answers are never read one by
    one (a subset's totals would show them)."""
    names = [w.strip() for w in (wanted or "").split(",") if w.strip()]
    if not names:
        return questions
    if split == "check":
        raise QuestionFileError("--ids is not for the check half: it prints totals only")
    known = {q.id for q in questions}
    unknown = [name for name in names if name not in known]
    if unknown:
        raise QuestionFileError(f"no question {', '.join(unknown)} in this set")
    chosen = set(names)
    return [q for q in questions if q.id in chosen]


def run(args: argparse.Namespace, settings: Settings) -> int:
    from paperdesk.core.library.library import Library
    from paperdesk.core.llm.factory import make_backend

    questions, pdfs = gather(args)
    questions = only_ids(questions, getattr(args, "ids", None), getattr(args, "split", None))
    home, ids = library_home(settings, pdfs)
    models = [m.strip() for m in (args.models or "").split(",") if m.strip()] or [""]
    if args.limit and args.limit < len(questions):  # an even spread over the set, so every paper is asked
        questions = [questions[i * len(questions) // args.limit] for i in range(args.limit)]
    if getattr(args, "evidence", False):
        return run_evidence(args, questions, settings, home, ids)
    hidden = getattr(args, "split", None) == "check"  # totals only: the check half is never read question by question
    saved = getattr(args, "results", None)
    if hidden and saved:
        raise SystemExit("bench qa: --results is not for the check half (it prints totals only)")
    report: dict[str, Any] = {"questions": _source_names(args), "library": str(home), "models": []}
    lines = []
    for model in models:
        # a path or a catalogue name, as llm.writer_model takes them; "" is the configured writer
        chosen = {"llm.model_path": "", "llm.writer_model": model} if model else {}
        model_settings = settings.with_overrides(home=str(home), **chosen)
        library = Library(model_settings)
        backend = make_backend(model_settings)
        backend.warm_up()  # load outside the timings, as a running app would have
        library.embedder.model()
        name = Path(model).name if model else "default"
        rows = []
        for done, q in enumerate(questions, start=1):
            start = time.perf_counter()
            result = ask_json(library, backend, model_settings, q.question)
            row = score(result, q, ids[q.paper])
            row["time_s"] = round(time.perf_counter() - start, 2)
            if q.kind != ABSENT:  # did the windows the writer read first hold the answer?
                row["held"] = is_correct(" ".join(result.get("read", [])), q)
            rows.append(row)
            if saved:
                with saved.open("a", encoding="utf-8") as out:
                    out.write(json.dumps({"id": q.id, "model": name, "paper_id": ids[q.paper], **result}) + "\n")
            if hidden:
                note(f"{name}: {done}/{len(questions)} asked")
            else:
                verdict = ("correct" if row["correct"] else "wrong") + (" (unsure)" if row["unsure"] else "")
                note(f"{name} {q.id}: {verdict}, "
                     f"{'on target' if row['on_target'] else 'off target'} {row['cited_pages']}, {row['time_s']} s: "
                     f"{row['text'][:160]}")
        library.close()
        total = totals(rows)
        entry = {"model": model or "default", "totals": total, "kinds": breakdown(rows, "kind"),
                 "papers": breakdown(rows, "paper")}
        if not hidden:
            entry["rows"] = rows
        report["models"].append(entry)
        lines.append(total_line(name, total))
        lines += [total_line(f"  kind {kind}", t) for kind, t in entry["kinds"].items()]
        if getattr(args, "split", None):
            lines += [total_line(f"  {paper[:38]}", t) for paper, t in entry["papers"].items()]
    emit(report, args.json, lines)
    return 0
