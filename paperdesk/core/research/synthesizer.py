"""The synthesizer: a markdown report from the answered sub-questions, streamed section by section.

Each sub-answer was written by the writer model from its own passages and
grounded by `agents.attribution` (unsupported [n] removed, uncited sentences
attributed). Here the sections' local [n] are renumbered into one sources
list, so every [n] in the report maps to (paper, page, chunk). What stayed
unanswered after the check is listed instead of invented, and a short block
says how the report was researched (steps, tools, timings). A section is
streamed as soon as its answer step finishes (`Synthesis`), so the report
grows while later steps run; the streamed pieces are exactly the stored text.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable

from paperdesk.core.agents.attribution import SOURCE_REF
from paperdesk.core.research.plan import Plan
from paperdesk.core.research.plan_edit import describe
from paperdesk.core.progress import counted


@dataclass
class Section:
    question: str
    answer: dict[str, Any]  # an `answer` tool result
    note: str = ""  # e.g. "answered after reformulating as ..."
    lead: str = ""  # said before the text (a quoted section says first that no generated answer held up)


QuotePlacer = Callable[[str, int, str], "tuple[int, str]"]  # (paper id, page, quote) -> (page, quote)


@dataclass
class Report:
    text: str
    citations: list[dict[str, Any]]  # {n, paper_id, title, page, chunk_id, quote}
    sources: list[dict[str, Any]] = field(default_factory=list)  # every passage used, with `cited`


def sections_of(plan: Plan, results: dict[str, Any]) -> list[Section]:
    """A section per answered sub-question: each answer step, or each iteration of an iterated one."""
    return [section for step in plan.steps for section in step_sections(step, results.get(step.output_key))]


def step_sections(step: Any, result: dict[str, Any] | None) -> list[Section]:
    """The sections one step's result gives: none unless it is an answer, one per iteration if iterated."""
    if step.tool != "answer" or not result:
        return []
    if "iterations" in result:
        return [Section(it["result"]["question"], it["result"]) for it in result["iterations"]]
    return [Section(result["question"], result)]


def lists_of(plan: Plan, results: dict[str, Any]) -> list[dict[str, Any]]:
    """The extract_list results that found (or left out) names, and arxiv_search results that found papers,
    in plan order."""
    return [results[s.output_key] for s in plan.steps if s.tool in ("extract_list", "arxiv_search")
            and any((results.get(s.output_key) or {}).get(k) for k in ("items", "papers", "dropped"))]


def synthesize(plan: Plan, sections: list[Section], unanswered: list[str], steps: list[dict[str, Any]],
               timings: dict[str, float], on_text: Callable[[str], None] | None = None,
               notes: list[str] | None = None, lists: list[dict[str, Any]] | None = None,
               place: QuotePlacer | None = None) -> Report:
    """Assemble and stream the report; returns its text and the citations behind every [n]."""
    synthesis = Synthesis(plan, on_text, place)
    for section in sections:
        synthesis.section(section, alone=len(sections) == 1)
    return synthesis.finish(unanswered, steps, timings, notes, lists)


class Synthesis:
    """The report built section by section, so each section streams as soon as its step has finished.

    The pieces handed to `on_text` are exactly the final report's text, in order: a reader of the
    stream sees the renumbered, grounded sections while later steps still run, and `finish` adds
    the lists, the unanswered questions, the sources and the "how" block.
    """

    def __init__(self, plan: Plan, on_text: Callable[[str], None] | None = None,
                 place: QuotePlacer | None = None) -> None:
        self.plan = plan
        self.place = place  # checks each citation's quote against its page (quote_pages.place_quote)
        self.emit = on_text or (lambda piece: None)
        self.parts: list[str] = []
        self.numbers: dict[int, int] = {}  # chunk id -> report-wide [n]
        self.citations: list[dict[str, Any]] = []
        self.sources: list[dict[str, Any]] = []
        self.questions: list[str] = []  # the sections written so far
        answers = [s for s in plan.steps if s.tool == "answer"]
        self.single = len(answers) == 1 and not answers[0].iterate_over  # at most one section can come

    def put(self, piece: str) -> None:
        if not self.parts:
            self.parts.append(f"# {self.plan.query}\n\n")
            self.emit(self.parts[0])
        self.parts.append(piece)
        self.emit(piece)

    def section(self, section: Section, alone: bool | None = None) -> None:
        """Add one answered sub-question (renumbered into the report's sources) and stream it."""
        alone = self.single if alone is None else alone
        text = _renumber(section.answer, self.numbers, self.citations, self.sources, self.place)
        same = alone and section.question.rstrip("?. ").lower() == self.plan.query.rstrip("?. ").lower()
        self.questions.append(section.question)
        lead = f"_{section.lead}_\n\n" if section.lead else ""
        self.put(f"{lead}{text}\n" if same else f"## {section.question}\n\n{lead}{text}\n")
        if section.note:
            self.put(f"\n_{section.note}_\n")
        self.put("\n")

    def finish(self, unanswered: list[str], steps: list[dict[str, Any]], timings: dict[str, float],
               notes: list[str] | None = None, lists: list[dict[str, Any]] | None = None,
               trace: list[str] | None = None) -> Report:
        """The rest of the report after the sections (`trace`: the agent loop's decisions, as lines); returns
        the whole report."""
        put, numbers, citations = self.put, self.numbers, self.citations
        for found in lists or []:
            if "papers" in found:  # arxiv_search: new work, not in the library (the agent offers to add it)
                put("## New on arXiv (not in your library)\n\n")
                for p in found["papers"]:
                    put(f"- {p['title']} (arXiv {p['arxiv_id']}{', ' + str(p['year']) if p.get('year') else ''})\n")
                put("\n")
                continue
            put(f"## {found['kind'].capitalize()} names in the passages\n\n")
            for item in found["items"]:
                put(f"- {item['item']} [{_number(item['passage'], numbers, citations, self.place)}]\n")
            if found.get("dropped"):  # names the kind check turned away, said rather than hidden
                put("\n_Left out: " + "; ".join(f"{d['item']} ({d['why']})" for d in found["dropped"]) + "._\n")
            put("\n")
        written = {q.rstrip("?. ").lower() for q in self.questions}
        unanswered = [q for q in unanswered if q.rstrip("?. ").lower() not in written]  # answered above: not twice
        if unanswered:
            put("## Not answered\n\nNo passage in the library supports an answer to:\n")
            for question in unanswered:
                put(f"- {question}\n")
            put("\n")
        if self.plan.dropped:  # a cap cut the plan: say what it left out, and why
            dropped = len(self.plan.dropped)
            put(f"## Left out of the plan\n\n{counted(dropped, 'part')} of the question "
                f"{'was' if dropped == 1 else 'were'} dropped before the run ({self.plan.dropped[0]['why']}):\n")
            for d in self.plan.dropped:
                put(f"- {d['question']}\n")
            put("\n")
        if citations:
            put("## Sources\n\n")
            for c in citations:
                via = f" ({c['via']})" if c.get("via") else ""  # found through the memory graph
                put(f"[{c['n']}] {c['title'] or c['paper_id']} ({c['paper_id']}), p. {c['page']}, "
                    f"chunk {c['chunk_id']}{via}\n")
            put("\n")
        put(_how(self.plan, steps, timings, notes or [], trace or []))
        return Report("".join(self.parts).rstrip() + "\n", citations, self.sources)


def _number(p: dict[str, Any], numbers: dict[int, int], citations: list[dict[str, Any]],
            place: QuotePlacer | None = None) -> int:
    """The report-wide [n] of a passage, adding it to the sources when it is new (its quote checked against
    its page by `place`: the page that holds the quote is cited, a quote no page holds is dropped)."""
    if p["chunk_id"] not in numbers:
        numbers[p["chunk_id"]] = len(numbers) + 1
        page, quote = int(p["page"]), p.get("quote", "")
        if place is not None and quote:
            page, quote = place(p["paper_id"], page, quote)
        citations.append({"n": numbers[p["chunk_id"]], "paper_id": p["paper_id"], "title": p.get("title", ""),
                          "page": page, "chunk_id": p["chunk_id"], "quote": quote,
                          **({"via": p["via"]} if p.get("via") else {})})
    return numbers[p["chunk_id"]]


def _renumber(answer: dict[str, Any], numbers: dict[int, int], citations: list[dict[str, Any]],
              sources: list[dict[str, Any]], place: QuotePlacer | None = None) -> str:
    local = {int(c["n"]): c for c in answer.get("citations", [])}
    for c in local.values():
        _number(c, numbers, citations, place)
    seen = {s["chunk_id"] for s in sources}
    for p in answer.get("sources", []):
        if p["chunk_id"] not in seen:
            seen.add(p["chunk_id"])
            sources.append({"paper_id": p["paper_id"], "title": p.get("title", ""), "page": p["page"],
                            "chunk_id": p["chunk_id"], "quote": p.get("text", "")[:240]})

    def swap(match: Any) -> str:
        c = local.get(int(match.group(1)))
        return f" [{numbers[c['chunk_id']]}]" if c else ""  # a number grounding did not keep is dropped

    return SOURCE_REF.sub(swap, answer.get("text", "")).strip()


def step_counts(plan: Plan, steps: list[dict[str, Any]]) -> tuple[int, int]:
    """(the plan's steps, the check's extra searches): the numbers the status and the report both say."""
    ids = {s.id for s in plan.steps}
    return len(plan.steps), sum(1 for row in steps if row["id"] not in ids and row.get("tool") != "agent")


def counts_line(plan: Plan, steps: list[dict[str, Any]]) -> str:
    """The count the status line and the report both give: "3 steps, and 1 check search for unsupported answers,
    and 2 agent calls, and 1 part of the question dropped (research.max_steps)"."""
    planned, checks = step_counts(plan, steps)
    agent = sum(1 for row in steps if row.get("tool") == "agent")
    parts = [f"{planned} step{'s' if planned != 1 else ''}"]
    if checks:
        parts.append(f"{checks} check search{'es' if checks != 1 else ''} for unsupported answers")
    if agent:
        parts.append(f"{agent} agent call{'s' if agent != 1 else ''}")
    if plan.dropped:
        parts.append(f"{len(plan.dropped)} part{'s' if len(plan.dropped) != 1 else ''} of the question dropped "
                     "(research.max_steps)")
    return ", and ".join(parts)


def _how(plan: Plan, steps: list[dict[str, Any]], timings: dict[str, float], notes: list[str],
         trace: list[str]) -> str:
    lines = ["## How this was researched", "", f"Plan made by {plan.made_by}; {counts_line(plan, steps)}."]
    by_id = {s.id: s for s in plan.steps}
    for row in steps:
        if row.get("tool") == "agent":
            continue  # the agent loop's calls are in its trace below, with what chose them and why
        step = by_id.get(row["id"])
        what = describe(step) if step else "check: searched again for an unsupported answer"
        seconds = f", {row['seconds']:.1f} s" if row.get("seconds") is not None else ""
        error = f": {row['error']}" if row.get("error") else ""
        lines.append(f"- {what}: {row['status']}{seconds}{error}")
    lines += [f"- {note}" for note in notes]
    lines += [f"- {line}" for line in trace]
    shown = ", ".join(f"{k.removesuffix('_s')} {v:.1f} s" for k, v in timings.items() if k.endswith("_s"))
    if shown:
        lines.append(f"\nTimings: {shown}.")
    return "\n".join(lines) + "\n"
