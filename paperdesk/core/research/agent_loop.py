"""The bounded agent loop: after a plan step runs, the model may make one more tool call, or say done.

After each step that completed, while an answer step that reads passages is still to run, the loop decides:
  1. limits first (code): research.max_extra_calls (the run's cap of extra calls), research.max_steps
     (plan steps + extra calls), research.max_iterations (shared with iterated steps), research.run_timeout
     (time left for one more step) and research.max_tokens (the loop's decisions together); the first one
     reached stops the loop and is named;
  2. a rule (code): when the passages found so far hold every content word of the question, no call is
     needed and the model is not asked;
  3. the structure model, under a JSON grammar: {"action": library_search|read_paper|arxiv_search|done,
     "query", "paper", "why"}, within the time its prompt and reply need at its measured speed
     (llm/time_budget.py, research.step_timeout at least). A reply that is not a choice (not JSON, not an
     object, an action outside the grammar) is asked for once more; invalid twice, the writer model decides
     from the same prompt and grammar, and the trace says so. What is picked is checked in code: missing
     or bad arguments, a paper the run has not seen, or a call already made are each treated as done, and
     said; so is a reply that stays invalid.
A call runs like a step (under the step's time limit, tracked so a resumed run keeps it) and its passages
join the inputs of the answer steps still to run; after it the loop decides again. "done" (or a limit)
ends the loop for the run. Every decision is a `TraceEntry` (with the model that made it): an
Event("loop") for the Plan pane while it runs, and a line of the report's "How this was researched" block.
"""

from __future__ import annotations

import json
import re
import time
from dataclasses import asdict, dataclass, field
from typing import Any

from paperdesk.core.cancel import CancelToken
from paperdesk.core.errors import CancelledError
from paperdesk.core.llm.backend import Backend, GenerationRequest, generate
from paperdesk.core.llm.time_budget import for_request
from paperdesk.core.research.engine import Event, Execution, Executor, _one_line, _summary
from paperdesk.core.research.plan import COMPLETED, FAILED, IN_PROGRESS, Plan, Step
from paperdesk.core.research.rules import STOP
from paperdesk.core.research.tracker import WHOLE, Tracker
from paperdesk.core.progress import counted

EXTRA_BASE = 2000  # step ids of the loop's calls: 2000 + n (the check's are 1000 + n)
LOOP_TOOLS = ("library_search", "read_paper", "arxiv_search")
DECISION_TOKENS = 64  # one decision: a short JSON object
QUERY_CHARS, WHY_CHARS = 60, 60
BY_WRITER = "decided by the writer model: the structure model's reply was invalid twice"


@dataclass
class TraceEntry:
    """One decision of the loop: a call (with its outcome), done (who said so and why) or the limit that stopped it."""

    after: int  # the step id it followed
    kind: str  # "call", "done", "limit"
    tool: str = ""
    args: dict[str, Any] = field(default_factory=dict)
    why: str = ""
    by: str = ""  # model, rule, check (the model's choice was refused), limit
    status: str = ""  # a call's COMPLETED / FAILED
    outcome: str = ""  # "5 passages", or the error
    seconds: float | None = None
    model: str = ""  # the model whose reply this is: "structure", or "writer" (the structure model's was invalid twice)

    def line(self) -> str:
        head = f"after step {self.after}: "
        writer = f"; {BY_WRITER}" if self.model == "writer" and "writer model" not in self.why else ""
        if self.kind == "limit":
            return head + f"agent loop stopped: {self.why}"
        if self.kind == "done":
            return head + f"agent loop done ({self.by}: {self.why}{writer})"
        args = " ".join(f"{k}={v!r}" for k, v in self.args.items())
        took = f", {self.seconds:.1f} s" if self.seconds is not None else ""
        result = f" -> {self.status}{': ' + self.outcome if self.outcome else ''}{took}" if self.status else ""
        return head + f"agent call {self.tool} {args} (why: {self.why or 'not given'}{writer}){result}"

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


def schema(tools: tuple[str, ...], papers: list[str]) -> dict[str, Any]:
    """The decision's grammar: the action from an enum, a short query, a paper from those the run has seen."""
    return {"type": "object", "properties": {
        "action": {"type": "string", "enum": [*tools, "done"]},
        "query": {"type": "string", "maxLength": QUERY_CHARS},
        "paper": {"type": "string", "enum": [*papers, ""]} if papers else {"type": "string", "maxLength": 0},
        "why": {"type": "string", "maxLength": WHY_CHARS}},
        "required": ["action", "query", "paper", "why"]}


def _stems(text: str) -> set[str]:
    return {w.lower()[:5] for w in re.findall(r"[A-Za-z0-9]+", text) if w.lower() not in STOP and len(w) > 1}


def _norm(tool: str, args: dict[str, Any]) -> tuple[str, str, str]:
    return tool, " ".join(str(args.get("query", "")).lower().split()), str(args.get("paper", "")).lower()


class AgentLoop:
    """The loop for one run; `after_step` is the Executor's hook."""

    def __init__(self, backend: Backend | None, settings: Any, plan: Plan, tracker: Tracker, executor: Executor,
                 cancel: CancelToken | None = None, writer: Backend | None = None) -> None:
        self.backend = backend  # the structure model (the writer, when there is no structure model)
        self.writer = writer if writer is not backend else None  # decides when the structure model's reply is invalid
        self.role = "writer" if writer is not None and writer is backend else "structure"
        self.plan = plan
        self.tracker = tracker
        self.executor = executor
        self.cancel = cancel or CancelToken()
        s = settings
        self.offline = bool(s["offline"])
        self.cap = int(s["research.max_extra_calls"])
        self.max_steps = int(s["research.max_steps"])
        self.token_budget = int(s["research.max_tokens"])
        self.step_timeout = float(s["research.step_timeout"])  # the least time a decision gets
        self.time_factor = float(s["research.time_factor"])  # room over a decision's measured-speed estimate
        self.tools = tuple(t for t in LOOP_TOOLS if not (self.offline and t == "arxiv_search"))
        self.trace: list[TraceEntry] = []
        self.calls = 0
        self.tokens = 0
        self.finished = self.cap == 0 or backend is None  # research.max_extra_calls 0 (or no model): the loop is off
        self.ran: set[int] = set()  # plan steps executed (or kept) in this run

    # -- the hook -----------------------------------------------------------------------------

    def restore(self, run_id: int, out: Execution) -> None:
        """A resumed run keeps the calls it made before: their results, their trace lines, their count."""
        steps = {s.id for s in self.plan.steps}
        for task in self.tracker.tasks(run_id):
            if task.step_id in steps and task.status == COMPLETED and task.iteration == WHOLE:
                self.ran.add(task.step_id)  # done before: no call could feed it any more
            if task.step_id < EXTRA_BASE or task.iteration != WHOLE:
                continue
            try:
                entry = TraceEntry(**json.loads(task.item or "{}"))
            except (TypeError, ValueError):
                continue
            entry.status, entry.seconds = task.status, task.seconds
            entry.outcome = _summary(task.result) if task.status == COMPLETED else (task.error or "")
            self.trace.append(entry)
            self.calls += 1
            if task.status == COMPLETED and (task.result or {}).get("passages"):
                out.results[task.output_key] = task.result
                out.extra_inputs.append(task.output_key)

    def after_step(self, run_id: int, step: Step, out: Execution) -> None:
        self.ran.add(step.id)
        if step.output_key not in out.results:
            return  # a failed or skipped step found nothing new to decide on
        while not self.finished and self._waiting_answers():
            entry = self._decide(step, out)
            if entry.kind != "call":
                self._record(entry)
                self.finished = True
                return
            self._call(run_id, entry, out)

    def _waiting_answers(self) -> list[Step]:
        """Answer steps still to run that read passages: what more evidence would go into."""
        return [s for s in self.plan.steps if s.tool == "answer" and s.id not in self.ran and not s.iterate_over
                and s.parameters.get("inputs")]

    # -- deciding -----------------------------------------------------------------------------

    def _decide(self, step: Step, out: Execution) -> TraceEntry:
        limit = self._limit()
        if limit:
            return TraceEntry(step.id, "limit", why=limit, by="limit")
        covered = self._covered(out)
        if covered:
            return TraceEntry(step.id, "done", why=covered, by="rule")
        reasons: list[str] = []
        try:
            for attempt in (0, 1):  # the structure model, and once more when its reply is not a choice
                if attempt and not self._room():
                    break
                data, invalid = _parse(self._ask(out, self.backend, attempt))
                if data is not None:
                    return self._check(step, data, out, self.role)
                reasons.append(invalid)
            if self.writer is not None and len(reasons) == 2 and self._room():
                data, invalid = _parse(self._ask(out, self.writer))
                if data is not None:
                    return self._check(step, data, out, "writer")
                return _refused(step, f"the structure model's reply was invalid twice ({reasons[0]}), and so was "
                                      f"the writer model's ({invalid})", "writer")
        except CancelledError:
            raise
        except Exception as exc:  # a model failure ends the loop, never the run
            who = "the writer model" if len(reasons) == 2 and self.writer is not None else "the model"
            return TraceEntry(step.id, "done", why=f"{who} failed ({_one_line(exc)}); treated as done", by="check",
                              model="writer" if who != "the model" else self.role)
        twice = f", {len(reasons)} times" if len(reasons) > 1 else ""
        return _refused(step, f"{reasons[0]}{twice}", self.role)

    def _room(self) -> bool:
        """Whether research.max_tokens leaves room for one more decision."""
        return self.tokens + DECISION_TOKENS <= self.token_budget

    def _limit(self) -> str:
        """The first limit reached, named with its config key, or ''."""
        if self.calls >= self.cap:
            return f"research.max_extra_calls ({self.cap}) reached: {counted(self.calls, 'extra call')} made"
        if len(self.plan.steps) + self.calls >= self.max_steps:
            return (f"research.max_steps ({self.max_steps}) reached: {counted(len(self.plan.steps), 'plan step')} and "
                    f"{counted(self.calls, 'extra call')}")
        if self.executor.iterations_left <= 0:
            return f"research.max_iterations ({self.executor.max_iterations}) used up"
        if time.monotonic() + self.step_timeout > self.executor.deadline:
            return (f"the run's limit, {self.executor.limit_text()}, leaves no time for one more "
                    f"{self.step_timeout:g} s step")
        if self.tokens + DECISION_TOKENS > self.token_budget:
            return (f"research.max_tokens ({self.token_budget}) leaves no room for another decision: the loop's "
                    f"decisions used {self.tokens} tokens")
        return ""

    def _covered(self, out: Execution) -> str:
        """Why no call is needed (the passages found so far hold every content word of the question), or ''."""
        words = _stems(self.plan.query)
        text = " ".join(p.get("text", "") + " " + p.get("title", "") for r in out.results.values()
                        if isinstance(r, dict) for p in r.get("passages") or [])
        if not words or not text:
            return ""
        missing = words - _stems(text)
        if missing:
            return ""
        return f"the passages found so far hold every content word of the question ({len(words)})"

    def _papers(self, out: Execution) -> dict[str, str]:
        """Paper id -> title of every passage the run has found."""
        return {p["paper_id"]: p.get("title", "") for r in out.results.values() if isinstance(r, dict)
                for p in r.get("passages") or [] if p.get("paper_id")}

    def _ask(self, out: Execution, backend: Backend | None = None, attempt: int = 0) -> Any:
        """One model's reply to the decision prompt, within the time its prompt and reply need on this machine."""
        backend = backend or self.backend
        request = self.request(out, backend)
        if attempt:
            request.seed = (request.seed or 0) + attempt
        budget = for_request(backend, request, self.step_timeout, self.time_factor)
        token = _Deadline(self.cancel, budget.seconds)
        result = generate(backend, request, cancel=token)
        if self.cancel.cancelled:
            raise CancelledError("cancelled")
        self.tokens += result.tokens
        if result.cancelled:
            raise TimeoutError(f"no choice: stopped by the decision's limit of {budget.describe()}")
        return result.text

    def request(self, out: Execution, backend: Backend | None = None) -> GenerationRequest:
        backend = backend or self.backend
        papers = self._papers(out)
        intro = ("You extend research over a library of papers. You may make ONE more tool call or stop. Tools: "
                 "library_search (query: words to find passages), read_paper (paper: an id below, query: what to "
                 "look for in it)" + (", arxiv_search (query: new work online)" if "arxiv_search" in self.tools
                                      else "")
                 + '. Reply with JSON {"action", "query", "paper", "why"}; action "done" when the passages '
                   "already answer the question.")
        found = []
        for s in self.plan.steps:
            r = out.results.get(s.output_key)
            if s.id in self.ran and isinstance(r, dict):
                found.append(f"- {s.tool} {s.parameters.get('query') or s.parameters.get('question') or ''}: "
                             f"{_summary(r)}")
        snippets = [f"[{p['paper_id']}] {' '.join(str(p.get('text', '')).split()[:20])}"
                    for r in out.results.values() if isinstance(r, dict) for p in (r.get("passages") or [])[:2]][:4]
        body = (f"Question: {self.plan.query}\nDone so far:\n" + "\n".join(found[-4:])
                + ("\nPassages:\n" + "\n".join(snippets) if snippets else "")
                + ("\nPapers: " + ", ".join(f"{pid} ({t[:40]})" for pid, t in list(papers.items())[:6])
                   if papers else "") + "\nNext action?")
        options = dict(max_tokens=DECISION_TOKENS, temperature=0.2, seed=1,
                       json_schema=schema(self.tools, list(papers)[:6]), repeat_penalty=1.1)
        if getattr(backend, "chat_template", None):
            return GenerationRequest(messages=[{"role": "system", "content": intro},
                                               {"role": "user", "content": body}], **options)
        return GenerationRequest(prompt=f"{intro}\n\n{body}\nJSON: ", stop=["\n\n"], **options)

    def _check(self, step: Step, data: dict[str, Any], out: Execution, model: str = "") -> TraceEntry:
        """A model's valid choice as a call, or as done with the reason it could not run."""
        def refused(why: str) -> TraceEntry:
            return _refused(step, why, model)

        action = str(data.get("action", "")).strip()
        why = " ".join(str(data.get("why", "")).split())[:WHY_CHARS]
        if action == "done":
            return TraceEntry(step.id, "done", why=why or "the model chose done", by="model", model=model)
        if action not in self.tools:
            return refused(f"{action} needs the network and paperdesk is offline")
        query = " ".join(str(data.get("query", "")).split())[:QUERY_CHARS]
        if len(query) < 3:
            return refused(f"{action} needs a query of 3 characters or more, got {query!r}")
        args: dict[str, Any] = {"query": query}
        if action == "read_paper":
            paper = str(data.get("paper", "")).strip()
            if paper not in self._papers(out):
                return refused(f"read_paper names a paper this run has not found ({paper!r})")
            args = {"paper": paper, "query": query}
        again = self._repeats(action, args)
        if again:
            return refused(f"the call {action} {query!r} repeats {again}")
        return TraceEntry(step.id, "call", action, args, why, by="model", model=model)

    def _repeats(self, tool: str, args: dict[str, Any]) -> str:
        key = _norm(tool, args)
        for s in self.plan.steps:
            if _norm(s.tool, s.parameters) == key:
                return f"step {s.id}"
        for entry in self.trace:
            if entry.kind == "call" and _norm(entry.tool, entry.args) == key:
                return f"the extra call after step {entry.after}"
        return ""

    # -- running a call -----------------------------------------------------------------------

    def _call(self, run_id: int, entry: TraceEntry, out: Execution) -> None:
        self.calls += 1
        self.executor.iterations_left -= 1
        step_id = EXTRA_BASE + self.calls
        key = f"extra_{self.calls}"
        self.tracker.ensure_task(run_id, step_id, WHOLE, json.dumps(entry.to_json()), key)
        self.tracker.start(run_id, step_id, WHOLE)
        self._emit(f"agent call {entry.tool} {entry.args.get('query', '')!r}: running", IN_PROGRESS)
        started = time.perf_counter()
        try:
            result = self.executor.call(entry.tool, dict(entry.args), out.results)
        except CancelledError:
            self.tracker.reset(run_id, step_id, WHOLE)
            raise
        except Exception as exc:  # a failed extra call is recorded; the plan goes on
            entry.status, entry.outcome = FAILED, _one_line(exc)
            entry.seconds = time.perf_counter() - started
            self.tracker.fail(run_id, step_id, WHOLE, entry.outcome, entry.seconds)
            self._record(entry)
            return
        entry.seconds = time.perf_counter() - started
        entry.status, entry.outcome = COMPLETED, _summary(result)
        self.tracker.complete(run_id, step_id, WHOLE, result, entry.seconds)
        if result.get("passages"):
            out.results[key] = result
            out.extra_inputs.append(key)
        self._record(entry)

    def _record(self, entry: TraceEntry) -> None:
        self.trace.append(entry)
        self._emit(entry.line())

    def _emit(self, message: str, status: str = "") -> None:
        """A loop event: a decision (status ''), or a call starting (IN_PROGRESS: not a trace line)."""
        self.executor.emit(Event("loop", status=status, message=message))


def _parse(raw: Any) -> tuple[dict[str, Any] | None, str]:
    """(the reply as a choice, '') or (None, why it is not one: not JSON, not an object, an action outside the
    grammar)."""
    try:
        data = json.loads(raw)
    except (TypeError, ValueError):
        return None, f"the model's choice is not JSON ({' '.join(str(raw).split())[:60]!r})"
    if not isinstance(data, dict):
        return None, "the model's choice is not a JSON object"
    action = str(data.get("action", "")).strip()
    if action != "done" and action not in LOOP_TOOLS:
        return None, f"the model chose an unknown tool {action!r}"
    return data, ""


def _refused(step: Step, why: str, model: str = "") -> TraceEntry:
    return TraceEntry(step.id, "done", why=f"{why}; treated as done", by="check", model=model)


class _Deadline(CancelToken):
    """Cancelled by the run's token or once `seconds` have passed."""

    def __init__(self, user: CancelToken, seconds: float) -> None:
        super().__init__()
        self.user, self.end = user, time.monotonic() + seconds

    @property
    def cancelled(self) -> bool:
        return time.monotonic() > self.end or self.user.cancelled or super().cancelled
