"""The execution engine: runs a validated plan step by step, tracked in SQLite.

Steps run in dependency order. An iterate_over step runs once per item of
the named result (capped at research.max_iterations). Each call runs in a
worker thread under its time limit with its own cancel token, so a timeout
or the user's cancel stops the tool (the model and arXiv client check the
token) and the caller gets control back at once; the engine waits for that
thread before starting another model call. The limit follows the machine
(step_limit.py): research.step_timeout at least, and each model call the tool
makes gets the time its prompt and reply need at the model's measured speed.
A call that runs past its limit is tried once more with half the evidence
(less_evidence.py) under a fresh limit; any other failing call is retried
once as it was. Then the step is FAILED with its error (a timeout's names the
limit that stopped it) and the run goes on; steps whose inputs all failed are
SKIPPED.
"""

from __future__ import annotations

import re
import threading
import time
from dataclasses import dataclass, field
from typing import Any, Callable

from paperdesk.core.cancel import CancelToken
from paperdesk.core.errors import CancelledError, PaperdeskError
from paperdesk.core.llm.time_budget import FACTOR
from paperdesk.core.research.less_evidence import less_evidence
from paperdesk.core.research.plan import (
    COMPLETED, FAILED, SKIPPED, TOOLS, Plan, Step, _as_list, fill_item, implied_deps, order,
)
from paperdesk.core.research.step_limit import StepLimit, TimedBackend
from paperdesk.core.research.tools import TOOL_FUNCS, Tool, ToolContext, items_of, merge
from paperdesk.core.research.tracker import WHOLE, Tracker

CHECK_BASE = 1000  # step ids of the check's retries: 1000 + the answer step's id
_QUESTION_WORDS = set("what which how why when where who whom whose does do did is are was were can could should "
                      "would the a an of in on for to and or with by from about across between each every this "
                      "that these those their its it be been any all".split())


@dataclass
class Event:
    """Progress for the status bar and the Plan pane."""

    # step_start, step_done, step_retry, step_failed, step_skipped, check, token (the report),
    # answer_token (a sub-answer as the model writes it), note, cancelled
    kind: str
    step_id: int | None = None
    iteration: int = WHOLE
    status: str = ""
    message: str = ""
    seconds: float | None = None
    text: str = ""  # a streamed piece of the report (kind "token")


EventSink = Callable[[Event], None]


class StepTimeout(PaperdeskError):
    """A step ran past its time limit; the message names the limit and how it was reached."""


@dataclass
class Execution:
    """What the steps produced, for the check and the synthesizer."""

    results: dict[str, Any] = field(default_factory=dict)  # output_key -> result of COMPLETED steps
    failed: dict[int, str] = field(default_factory=dict)  # step id -> error
    skipped: dict[int, str] = field(default_factory=dict)
    seconds: dict[int, float] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    extra_inputs: list[str] = field(default_factory=list)  # the agent loop's calls' keys, read by later answers


StepHook = Callable[[int, Step, Execution], None]


class Executor:
    """Runs one plan's steps for one run id; `cancel` may be set from any thread."""

    def __init__(self, tracker: Tracker, context: Callable[[CancelToken], ToolContext], *,
                 tools: dict[str, Tool] | None = None, step_timeout: float = 30.0, run_timeout: float = 600.0,
                 max_iterations: int = 20, on_event: EventSink | None = None, cancel: CancelToken | None = None,
                 time_factor: float = FACTOR, step_seconds: float = 0.0) -> None:
        self.tracker = tracker
        self.context = context
        self.tools = tools or TOOL_FUNCS
        self.step_timeout = step_timeout  # research.step_timeout: the least time a call gets
        self.time_factor = time_factor  # research.time_factor: room over a model call's measured-speed estimate
        self.run_timeout = run_timeout
        # one answer step's seconds at the writer's measured speed: a run of n steps gets at least n + 1 of them
        self.step_seconds = step_seconds
        self.run_limit = run_timeout  # this run's limit: research.run_timeout, or more on a slow machine
        self.max_iterations = max_iterations
        self.emit = on_event or (lambda event: None)
        self.cancel = cancel or CancelToken()
        self.inflight: threading.Thread | None = None
        self.calls = 0  # tool calls made, so tests can see a resume repeats nothing
        self.after_step: StepHook | None = None  # the agent loop: may make more calls after a step ran
        self.iterations_left = max_iterations  # research.max_iterations, shared by iterated steps and the loop
        self.deadline = time.monotonic() + run_timeout  # research.run_timeout, set again by each execute
        self.cut = ""  # what the last call with less evidence left out ("k 2 instead of 5")

    # -- the loop -------------------------------------------------------------------------

    def execute(self, run_id: int, plan: Plan, into: Execution | None = None) -> Execution:
        out = into or Execution()
        self.run_limit = max(self.run_timeout, self.step_seconds * (len(plan.steps) + 1))
        self.deadline = deadline = time.monotonic() + self.run_limit
        self.iterations_left = self.max_iterations
        by_id = {s.id: s for s in plan.steps}
        for step in order(plan):
            self.cancel.raise_if_cancelled()
            self.tracker.ensure_task(run_id, step.id, WHOLE, None, step.output_key)
            row = self.tracker.task(run_id, step.id, WHOLE)
            if row is not None and row.status == COMPLETED:  # done before a kill or a cancel: keep it
                out.results[step.output_key] = row.result
                out.seconds[step.id] = row.seconds or 0.0
                self.emit(Event("step_done", step.id, status=COMPLETED, message="already done", seconds=row.seconds))
                continue
            missing = self._missing_inputs(plan, step, out, by_id)
            if missing:
                self._skip(run_id, step, out, missing)
                continue
            if time.monotonic() > deadline:
                self._skip(run_id, step, out, f"the run passed its {self.limit_text()} limit")
                continue
            if step.iterate_over:
                self.iterations_left = self._iterate(run_id, step, out, self.iterations_left)
            else:
                self._run_task(run_id, step, WHOLE, self._with_extra(step, out), out)
            if self.after_step is not None:
                self.after_step(run_id, step, out)
        return out

    @staticmethod
    def _with_extra(step: Step, out: Execution) -> dict[str, Any]:
        """An answer step's parameters with the passages the agent loop's extra calls found added to its inputs."""
        inputs = _as_list(step.parameters.get("inputs"))
        if step.tool != "answer" or not inputs or not out.extra_inputs:
            return step.parameters
        return {**step.parameters, "inputs": inputs + [k for k in out.extra_inputs if k not in inputs]}

    def _missing_inputs(self, plan: Plan, step: Step, out: Execution, by_id: dict[int, Step]) -> str:
        """Why the step cannot run (every step it reads from failed), or '' when it can."""
        spec = TOOLS[step.tool]
        needed = [r for name in spec.refs for r in _as_list(step.parameters.get(name))]
        if step.iterate_over:
            needed.append(step.iterate_over)
        if needed and not any(key in out.results for key in needed):
            if step.tool == "answer" and not step.iterate_over:
                return ""  # an answer without inputs searches for itself
            return f"its input {needed[0]} has no result"
        deps = [d for d in implied_deps(plan, step) if d in out.failed or d in out.skipped]
        if deps and len(deps) == len(implied_deps(plan, step)) and not needed:
            return f"step {deps[0]} failed"
        return ""

    def _skip(self, run_id: int, step: Step, out: Execution, why: str) -> None:
        self.tracker.fail(run_id, step.id, WHOLE, why, None, status=SKIPPED)
        out.skipped[step.id] = why
        self.emit(Event("step_skipped", step.id, status=SKIPPED, message=why))

    def _iterate(self, run_id: int, step: Step, out: Execution, left: int) -> int:
        source = out.results.get(step.iterate_over or "")
        every = items_of(source, 10_000)
        values = every[: max(left, 0)]
        if len(values) < len(every):
            out.notes.append(f"step {step.id} ran for {len(values)} of {len(every)} items "
                             f"(iteration cap {self.max_iterations})")
        if not values:
            self._skip(run_id, step, out, f"{step.iterate_over} has no items to go through")
            return left
        self.tracker.start(run_id, step.id, WHOLE)
        self.emit(Event("step_start", step.id, message=f"{len(values)} items"))
        start = time.perf_counter()
        done: list[tuple[str, dict[str, Any]]] = []
        errors: list[str] = []
        failed_items: list[str] = []
        for i, item in enumerate(values):
            self.tracker.ensure_task(run_id, step.id, i, item, step.output_key)
            result = self._run_task(run_id, step, i, fill_item(step.parameters, item), out, item=item)
            if result is not None:
                done.append((item, result))
            else:
                errors.append(out.failed.pop(step.id, "failed"))
                failed_items.append(f"{item}: {errors[-1]}")
        seconds = time.perf_counter() - start
        if done and errors:  # the items that failed are said, not dropped in silence
            out.notes.append(f"step {step.id} ({step.tool}) failed for {len(errors)} of {len(values)} items: "
                             + "; ".join(failed_items[:3]) + (" ..." if len(errors) > 3 else ""))
        if done:
            merged = merge(done)
            self.tracker.complete(run_id, step.id, WHOLE, merged, seconds)
            out.results[step.output_key] = merged
            out.seconds[step.id] = seconds
            self.emit(Event("step_done", step.id, status=COMPLETED, seconds=seconds,
                            message=f"{len(done)} of {len(values)} items"))
        else:
            self.tracker.fail(run_id, step.id, WHOLE, errors[0], seconds)
            out.failed[step.id] = errors[0]
            self.emit(Event("step_failed", step.id, status=FAILED, message=errors[0], seconds=seconds))
        return left - len(values)

    def limit_text(self) -> str:
        """'600 s (research.run_timeout)' or '910 s (6 steps and the report at ~130 s each at the writer's
        measured speed)'."""
        if self.run_limit <= self.run_timeout:
            return f"{self.run_limit:g} s (research.run_timeout)"
        steps = round(self.run_limit / self.step_seconds) - 1 if self.step_seconds else 0
        from paperdesk.core.llm.time_budget import seconds_text

        return (f"{seconds_text(self.run_limit)} s ({steps} steps and the report at ~{seconds_text(self.step_seconds)}"
                " s each at the writer's measured speed)")

    def _run_task(self, run_id: int, step: Step, iteration: int, params: dict[str, Any], out: Execution,
                  item: str | None = None) -> dict[str, Any] | None:
        """One call with one retry; the result, or None when it FAILED (recorded)."""
        row = self.tracker.task(run_id, step.id, iteration)
        if row is not None and row.status == COMPLETED:
            return row.result
        label = f"{step.tool}" + (f" [{item}]" if item else "")
        error = ""
        fewer = False  # the retry of a call that ran past its limit reads half the evidence
        for attempt in (1, 2):
            self.cancel.raise_if_cancelled()
            self.tracker.start(run_id, step.id, iteration)
            again = f"{label}, retry" + (" with less evidence" if fewer else "")
            self.emit(Event("step_start", step.id, iteration, message=label if attempt == 1 else again))
            start = time.perf_counter()
            try:
                result = self.call(step.tool, params, out.results, fewer=fewer)
            except CancelledError:
                self.tracker.reset(run_id, step.id, iteration)
                raise
            except Exception as exc:  # a tool's failure is data for the run, not a crash of it
                timed_out = isinstance(exc, StepTimeout)
                error = str(exc) if timed_out else _one_line(exc)
                if timed_out and fewer:
                    error += f", also when tried again with less evidence ({self.cut})"
                seconds = time.perf_counter() - start
                if attempt == 1:
                    fewer = timed_out
                    said = f"step {step.id} ({label}): {error}"
                    self.emit(Event("step_retry", step.id, iteration, seconds=seconds,
                                    message=f"{said}; trying once more" + (" with less evidence" if fewer else "")))
                    continue
                self.tracker.fail(run_id, step.id, iteration, error, seconds)
                out.failed[step.id] = error
                self.emit(Event("step_failed", step.id, iteration, FAILED, error, seconds))
                return None
            seconds = time.perf_counter() - start
            self.tracker.complete(run_id, step.id, iteration, result, seconds)
            if iteration == WHOLE:
                out.results[step.output_key] = result
                out.seconds[step.id] = seconds
            self.emit(Event("step_done", step.id, iteration, COMPLETED, _summary(result), seconds))
            return result
        return None  # not reached: the second attempt returns or fails

    # -- one tool call in a worker, under the timeout, cancellable -------------------------------

    def settle(self, wait: float = 60.0) -> None:
        """Wait for a cancelled call still unwinding (it holds the model) before the next one."""
        if self.inflight is not None:
            self.inflight.join(wait)
            self.inflight = None

    def call(self, tool: str, params: dict[str, Any], inputs: dict[str, Any], fewer: bool = False) -> dict[str, Any]:
        """Run one tool call under its time limit (StepTimeout names the limit); `fewer`: with half the evidence."""
        self.settle()
        self.calls += 1
        token = CancelToken()
        ctx = self.context(token)
        if fewer:
            params, self.cut = less_evidence(tool, params, ctx)
        limit = StepLimit(self.step_timeout, self.time_factor)  # counts from here, after the last call unwound
        if getattr(ctx, "writer", None) is not None:
            ctx.writer = TimedBackend(ctx.writer, limit)  # each model call sizes the limit before it starts
        box: dict[str, Any] = {}

        def work() -> None:
            try:
                box["result"] = self.tools[tool](ctx, params, inputs)
            except BaseException as exc:  # handed to the waiting thread
                box["error"] = exc

        worker = threading.Thread(target=work, name=f"research-{tool}", daemon=True)
        worker.start()
        while worker.is_alive():
            worker.join(0.01)
            if self.cancel.cancelled:
                token.cancel()
                self.inflight = worker  # let it unwind; the next call waits for it
                raise CancelledError("cancelled")
            if limit.passed() and worker.is_alive():
                token.cancel()
                self.inflight = worker
                raise StepTimeout(limit.message())
        if "error" in box:
            raise box["error"]
        return box["result"]


def reformulate(sub_question: str, query: str) -> str:
    """A retry query for an unsupported sub-question: its content words plus the question's topic words."""
    words = [w for w in re.findall(r"[A-Za-z0-9][A-Za-z0-9\-]*", sub_question) if w.lower() not in _QUESTION_WORDS]
    extra = [w for w in re.findall(r"[A-Za-z0-9][A-Za-z0-9\-]*", query)
             if w.lower() not in _QUESTION_WORDS and w.lower() not in {x.lower() for x in words}]
    text = " ".join(words + extra[:4])
    return text if text.strip() and text.lower() != sub_question.lower() else f"{sub_question} {query}"


def left_out(result: dict[str, Any]) -> str:
    """'; left out Koncel-Kedziorski (a person's name ...)': the names an extract_list step dropped, and why."""
    gone = result.get("dropped") or []
    if not gone:
        return ""
    shown = "; ".join(f"{d['item']} ({d['why']})" for d in gone[:4])
    return f"; left out {shown}" + (f" and {len(gone) - 4} more" if len(gone) > 4 else "")


def _summary(result: Any) -> str:
    if not isinstance(result, dict):
        return ""
    for key, noun in (("passages", "passages"), ("items", "items"), ("papers", "papers")):
        if key in result:
            return f"{len(result[key])} {noun}" + left_out(result)
    if "citations" in result:
        return f"{len(result['citations'])} citations"
    return "summary" if result.get("summary") else "no summary stored"


def _one_line(exc: BaseException) -> str:
    text = " ".join(str(exc).split()) or type(exc).__name__
    return text if len(text) < 200 else text[:197] + "..."
