"""The Researcher: plan, revise, run and resume research over one library (see the package docstring).

A plan run (`run`, `resume`: the user's plan, edits included) is always reported from its own steps:
steps that failed or ran out of time are named in the report's "Steps that failed" part, what no step
supported is listed as not answered, with the closest passages quoted when nothing held up. Only
`research`, when no plan could be made at all, writes its report with one search and one cited
report instead (`fallback`, saying why).
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any

from paperdesk.core.agents import answer as answers
from paperdesk.core.cancel import CancelToken
from paperdesk.core.errors import CancelledError, PaperdeskError
from paperdesk.core.library.library import Library
from paperdesk.core.llm.backend import Backend
from paperdesk.core.research import plan_edit
from paperdesk.core.research.agent_loop import EXTRA_BASE, AgentLoop
from paperdesk.core.research.engine import CHECK_BASE, Event, EventSink, Execution, Executor, reformulate
from paperdesk.core.research.failed_steps import failed_part, failed_rows, summary, unrun_questions
from paperdesk.core.research.plan import COMPLETED, FAILED, Plan, PlanError, validate
from paperdesk.core.research.planner import Planner
from paperdesk.core.research.quote_pages import place_quote
from paperdesk.core.research.quoted import quoted_section
from paperdesk.core.research.synthesizer import Section, Synthesis, lists_of, sections_of, step_sections
from paperdesk.core.research.tools import Tool, ToolContext
from paperdesk.core.research.tracker import WHOLE, Tracker

FALLBACK_NOTE = ("No research plan could be made ({why}); this report comes from one library search and one "
                 "cited report instead.")


@dataclass
class Backends:
    """The two model roles: `writer` writes prose, `planner` makes plans and other short structured calls."""

    writer: Backend | None
    planner: Backend | None = None
    planner_name: str = ""


@dataclass
class ResearchResult:
    run_id: int | None
    plan: Plan
    report: str
    citations: list[dict[str, Any]]
    sources: list[dict[str, Any]]
    steps: list[dict[str, Any]]  # {id, tool, status, seconds, error}
    timings: dict[str, float]
    unanswered: list[str] = field(default_factory=list)
    fallback: bool = False
    calls: int = 0  # tool calls made by this process
    trace: list[Any] = field(default_factory=list)  # the agent loop's decisions (agent_loop.TraceEntry)
    failed: list[dict[str, Any]] = field(default_factory=list)  # {id, tool, status, why}: steps that gave nothing

    def to_json(self) -> dict[str, Any]:
        """The `paperdesk research --json` shape."""
        return {"plan": self.plan.to_json(), "steps": self.steps, "report": self.report,
                "citations": [{k: c[k] for k in ("n", "paper_id", "page", "chunk_id", "quote")} for c in self.citations],
                "timings": {k: round(v, 3) for k, v in self.timings.items()}, "run_id": self.run_id,
                "unanswered": self.unanswered, "fallback": self.fallback, "dropped": self.plan.dropped,
                "failed": self.failed, "trace": [t.to_json() for t in self.trace]}


def _model_name(backend: Backend | None) -> str:
    """A backend's GGUF stem ("qwen2.5-coder-1.5b-instruct"), else "writer" (a remote endpoint)."""
    return getattr(getattr(backend, "model_path", None), "stem", "") or "writer"


ANSWER_PROMPT_TOKENS = 1200  # an answer step's prompt: its passages, the sub-question and the instructions


class Researcher:
    """Headless multi-step research; every call takes an optional dialogue text for its prompts."""

    def __init__(self, library: Library, backends: Backends, tracker: Tracker | None = None,
                 settings: Any = None, tools: dict[str, Tool] | None = None, memory: Any = None) -> None:
        self.library = library
        self.memory = memory  # a MemoryGraph: searches add the pages it recalls (memory.recall of them)
        self.backends = backends
        self.tracker = tracker or Tracker.for_library(library)
        self.settings = settings or library.settings
        self.tools = tools
        s = self.settings
        self.limits = {"max_steps": s["research.max_steps"], "max_iterations": s["research.max_iterations"]}
        self.planner = Planner(backends.planner, backends.planner_name, s["offline"], **self.limits,
                               timeout=s["research.plan_timeout"], writer=backends.writer,
                               writer_name=_model_name(backends.writer))
        self._executor: Executor | None = None

    # -- planning -------------------------------------------------------------------------

    def plan(self, question: str, dialogue: str = "", cancel: CancelToken | None = None) -> Plan:
        """A validated plan for the question, made by the planner model or (fallback) the rules."""
        return self.planner.plan(question, dialogue, cancel)

    def validate(self, plan: Plan) -> None:
        validate(plan, offline=self.settings["offline"], **self.limits)

    def revise(self, plan: Plan, feedback: str, dialogue: str = "") -> tuple[Plan, plan_edit.PlanDiff]:
        """A proposed revision and its diff; the given plan is not changed (accept = use the new one).

        The feedback is read by rules (research/revise.py): drop step N / the <tool> step, list the
        datasets|methods|metrics, fewer|more passages, focus on X, also X, the `step` edits; "that" and
        "as I said" refer to the user's messages in `dialogue`. Anything else is refused (NotUnderstood).
        """
        from paperdesk.core.research.revise import revise_plan  # here, so the module's imports stay as they are

        new = revise_plan(plan, feedback, dialogue, offline=self.settings["offline"],
                          default_k=self.settings["answer.k"], **self.limits)
        return new, plan_edit.diff(plan, new)

    # -- running --------------------------------------------------------------------------

    def research(self, question: str, on_event: EventSink | None = None, cancel: CancelToken | None = None,
                 dialogue: str = "") -> ResearchResult:
        """Plan and run in one go (agent and reader modes); only when no plan can be made, one search writes it."""
        start = time.perf_counter()
        try:
            plan = self.plan(question, dialogue, cancel)
        except CancelledError:
            raise
        except PaperdeskError as exc:
            return self.fallback(question, f"planning failed: {exc}", on_event, cancel, dialogue=dialogue)
        plan_s = time.perf_counter() - start
        result = self.run(plan, on_event, cancel, dialogue)
        result.timings["plan_s"] = plan_s
        result.timings["total_s"] = time.perf_counter() - start
        return result

    def run(self, plan: Plan, on_event: EventSink | None = None, cancel: CancelToken | None = None,
            dialogue: str = "", mode: str = "") -> ResearchResult:
        """Validate, record a new run (with the face's research mode, which its resume keeps), execute, check,
        synthesize. CancelledError leaves it resumable."""
        self.validate(plan)
        run_id = self.tracker.new_run(plan, mode)
        return self._drive(run_id, plan, on_event, cancel, dialogue)

    def resume(self, run_id: int, on_event: EventSink | None = None, cancel: CancelToken | None = None,
               dialogue: str = "") -> ResearchResult:
        """Finish a killed or cancelled run; COMPLETED steps are not run again."""
        row = self.tracker.run(run_id)
        if row.status == COMPLETED and row.report:
            raise PaperdeskError(f"research run {run_id} already finished; its report is stored")
        self.tracker.reopen(run_id)
        return self._drive(run_id, row.plan, on_event, cancel, dialogue)

    def _executor_for(self, on_event: EventSink | None, cancel: CancelToken, dialogue: str = "") -> Executor:
        s = self.settings
        if self._executor is not None:
            self._executor.settle()  # a cancelled call of the last run may still hold the model

        def context(token: CancelToken) -> ToolContext:
            def on_token(text: str) -> None:  # the answer's words as the model writes them
                if on_event is not None and not token.cancelled:  # an unwinding call stays quiet
                    on_event(Event("answer_token", text=text))

            return ToolContext(self.library, self.backends.writer, s, token,
                               answer_tokens=s["research.step_tokens"], k=s["answer.k"], dialogue=dialogue,
                               memory=self.memory, recall_k=s["memory.recall"], on_token=on_token)

        self._executor = Executor(self.tracker, context, tools=self.tools, step_timeout=s["research.step_timeout"],
                                  run_timeout=s["research.run_timeout"], max_iterations=s["research.max_iterations"],
                                  on_event=on_event, cancel=cancel, time_factor=s["research.time_factor"],
                                  step_seconds=self._step_seconds())
        return self._executor

    def _step_seconds(self) -> float:
        """One answer step's seconds at the writer's measured speed: a prompt of the step's passages (about
        ANSWER_PROMPT_TOKENS) and its sub-answer (research.step_tokens); 0 for a model of unknown speed."""
        from paperdesk.core.llm.time_budget import budget, model_speeds

        measured = model_speeds(self.backends.writer) if self.backends.writer is not None else None
        if measured is None:
            return 0.0
        found = budget(ANSWER_PROMPT_TOKENS, self.settings["research.step_tokens"], 0.0, measured,
                       self.settings["research.time_factor"])
        return found.seconds

    def _drive(self, run_id: int, plan: Plan, on_event: EventSink | None, cancel: CancelToken | None,
               dialogue: str = "") -> ResearchResult:
        """Steps (do), check, synthesis; `dialogue` reaches every answer prompt of the steps and the check.

        The report streams as it is built: each supported section (grounded and renumbered, as stored)
        as soon as its answer step finishes, the check's answers after the steps, then the steps that
        failed, the lists, the sources and the "how" block; "answer_token" events carry the model's
        words while it writes. The plan is never swapped for another pipeline: with steps failed, the
        report comes from those that finished; with nothing supported, it says what it could not find
        and quotes the found passages closest to the question.
        """
        emit = on_event or (lambda e: None)
        cancel = cancel or CancelToken()
        out = Execution()
        synthesis = Synthesis(plan, lambda piece: emit(Event("token", text=piece)), self._quote_placer())
        by_id = {s.id: s for s in plan.steps}

        def on_step(event: Event) -> None:
            emit(event)
            step = by_id.get(event.step_id) if event.kind == "step_done" and event.iteration == WHOLE else None
            if step is not None and step.tool == "answer":  # its result is in `out` before this event
                for section in step_sections(step, out.results.get(step.output_key)):
                    if section.answer.get("supported"):
                        synthesis.section(section)

        executor = self._executor_for(on_step, cancel, dialogue)
        loop = self._loop(run_id, plan, executor, out, cancel)
        warm = getattr(getattr(self.library, "embedder", None), "model", None)
        if warm is not None:
            warm()  # load the embedding model before any step's timeout starts counting
        start = time.perf_counter()
        try:
            executor.execute(run_id, plan, out)
            steps_s = time.perf_counter() - start
            retried, unanswered = self._check(run_id, plan, out, executor)
            for section in retried:
                synthesis.section(section)
            # an answer step that failed or was skipped left its question unanswered too ("Steps that failed" says it)
            missing = unanswered + [q for q in unrun_questions(plan, out.failed, out.skipped) if q not in unanswered]
            quoted = None
            if not synthesis.questions and missing and self.library is not None:  # nothing held up: quote
                quoted = quoted_section(self.library, plan.query, out.results, missing)
                if quoted is not None:
                    synthesis.section(quoted, alone=True)
        except CancelledError:
            self.tracker.set_run_status(run_id, "CANCELLED")
            emit(Event("cancelled", message=f"cancelled; resume with research --resume {run_id}"))
            raise
        check_s = time.perf_counter() - start - steps_s
        steps = self._steps(run_id, plan)
        failed = failed_rows(plan, out.failed, out.skipped)
        timings = {"steps_s": steps_s, "check_s": check_s}
        synth_start = time.perf_counter()
        if failed:
            synthesis.put(failed_part(failed))
        # the quoted section's lead already names the unanswered questions: one report says it once
        report = synthesis.finish([] if quoted is not None else unanswered, steps, timings, notes=out.notes,
                                  lists=lists_of(plan, out.results), trace=[t.line() for t in loop.trace])
        timings["synthesis_s"] = time.perf_counter() - synth_start
        timings["total_s"] = time.perf_counter() - start
        self.tracker.finish_run(run_id, COMPLETED, report.text, timings, error=summary(failed) or None)
        return ResearchResult(run_id, plan, report.text, report.citations, report.sources, steps, timings, missing,
                              calls=executor.calls, trace=list(loop.trace), failed=failed)

    def _loop(self, run_id: int, plan: Plan, executor: Executor, out: Execution, cancel: CancelToken) -> AgentLoop:
        """The bounded agent loop (agent_loop.py) hooked after each step; a resumed run keeps its calls."""
        loop = AgentLoop(self.backends.planner or self.backends.writer, self.settings, plan, self.tracker, executor,
                         cancel, writer=self.backends.writer)
        loop.restore(run_id, out)
        executor.after_step = loop.after_step
        return loop

    def _check(self, run_id: int, plan: Plan, out: Execution, executor: Executor
               ) -> tuple[list[Section], list[str]]:
        """Sub-answers with no supporting passage get one reformulated search; what stays unsupported is listed.

        Returns the sections the retries answered (the supported ones were streamed as their steps
        finished, so these follow them in the report) and the questions that stayed unanswered.
        """
        sections, unanswered = [], []
        for i, section in enumerate(sections_of(plan, out.results)):
            if section.answer.get("supported"):
                continue
            retry_q = reformulate(section.question, plan.query)
            executor.emit(Event("check", message=f"no support for {section.question!r}; searching {retry_q!r}"))
            step_id = CHECK_BASE + i + 1  # the i-th sub-answer's retry, stable across a resume
            retried = self._check_task(run_id, step_id, retry_q, section.question, executor, out)
            if retried and retried.get("supported"):
                sections.append(Section(section.question, retried, f"answered after searching again for: {retry_q}"))
            else:
                unanswered.append(section.question)
        return sections, unanswered

    def _check_task(self, run_id: int, step_id: int, retry_q: str, question: str, executor: Executor,
                    out: Execution) -> dict[str, Any] | None:
        key = f"check_{step_id}"
        self.tracker.ensure_task(run_id, step_id, WHOLE, retry_q, key)
        row = self.tracker.task(run_id, step_id, WHOLE)
        if row is not None and row.status in (COMPLETED, FAILED):
            return row.result
        self.tracker.start(run_id, step_id, WHOLE)
        started = time.perf_counter()
        try:
            found = executor.call("library_search", {"query": retry_q}, out.results)
            result = executor.call("answer", {"question": question, "inputs": ["retry"]}, {"retry": found})
        except CancelledError:
            self.tracker.reset(run_id, step_id, WHOLE)
            raise
        except Exception as exc:  # the check is best effort: an error leaves the question unanswered
            self.tracker.fail(run_id, step_id, WHOLE, str(exc), time.perf_counter() - started)
            return None
        self.tracker.complete(run_id, step_id, WHOLE, result, time.perf_counter() - started)
        return result

    def _quote_placer(self) -> Any:
        """Each citation's quote checked against the cited page (None without a library to read pages from)."""
        store = getattr(self.library, "store", None)
        if store is None:
            return None

        def place(paper_id: str, page: int, quote: str) -> tuple[int, str]:
            paper = store.get_paper(paper_id)
            return place_quote(paper_id, page, quote, store.page_text, paper.page_count if paper else page)

        return place

    def _steps(self, run_id: int, plan: Plan) -> list[dict[str, Any]]:
        tools = {s.id: s.tool for s in plan.steps}
        return [{"id": t.step_id, "tool": tools.get(t.step_id, "agent" if t.step_id >= EXTRA_BASE else "check"),
                 "status": t.status,
                 "seconds": round(t.seconds, 3) if t.seconds is not None else None, "error": t.error,
                 "attempts": t.attempts}
                for t in self.tracker.tasks(run_id) if t.iteration == WHOLE]

    def fallback(self, question: str, why: str, on_event: EventSink | None = None,
                 cancel: CancelToken | None = None, plan: Plan | None = None, dialogue: str = "") -> ResearchResult:
        """One library search and one cited report, saying why it ran: for a question no plan could be made for."""
        emit = on_event or (lambda e: None)
        start = time.perf_counter()
        note = FALLBACK_NOTE.format(why=why)
        emit(Event("note", message=note))
        hits = answers.retrieve(self.library, question, self.settings["research.k"], memory=self.memory,
                                recall_k=self.settings["memory.recall"])
        if self.backends.writer is None:
            raise PaperdeskError("no writer model is loaded; research needs one")
        pieces: list[str] = []
        result = answers.write(self.library, self.backends.writer, question, hits, "research_report",
                               on_token=lambda t: (pieces.append(t), emit(Event("token", text=t))), cancel=cancel,
                               max_tokens=self.settings["research.max_tokens"], dialogue=dialogue)
        if result.cancelled:
            raise CancelledError("cancelled")
        text = f"# {question}\n\n{result.text}\n\n_{note}_\n"
        timings = {"total_s": time.perf_counter() - start}
        used = plan or Plan(question, [], made_by="fallback")
        return ResearchResult(None, used, text, result.citations, result.sources, [], timings, fallback=True)


__all__ = ["Researcher", "Backends", "ResearchResult", "PlanError", "FAILED"]
