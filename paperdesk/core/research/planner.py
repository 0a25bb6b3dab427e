"""The planner: a grammar-constrained few-shot model call, validated, retried once, then rules.

Small models loop when asked for a free JSON plan. What works: a few-shot
prompt and a JSON-schema grammar where the model only picks a tool from an
enum and writes a short query (maxLength) for at most a few steps (maxItems).
Code turns those (tool, query) pairs into a full plan (output keys, inputs,
iterate_over), validates it, and rejects copies of the examples' queries. On
any failure the model gets one more try, then `rules.rule_plan` answers.
"""

from __future__ import annotations

import json
import re
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

from paperdesk.core.cancel import CancelToken
from paperdesk.core.errors import CancelledError, PaperdeskError
from paperdesk.core.llm.backend import Backend, GenerationRequest, generate
from paperdesk.core.research.plan import ITEM, Plan, PlanError, Step, validate
from paperdesk.core.research.rules import STOP, rule_plan

if TYPE_CHECKING:
    from paperdesk.core.llm.time_budget import TimeBudget

MODEL_TOOLS = ("library_search", "read_paper", "extract_list", "arxiv_search", "answer")
MAX_MODEL_STEPS = 5
QUERY_CHARS = 70
EXAMPLES: list[tuple[str, list[tuple[str, str]]]] = [
    ("How does dropout reduce overfitting in neural networks?",
     [("library_search", "dropout overfitting"), ("answer", "How does dropout reduce overfitting?")]),
    ("Which corpora are used for speech recognition and how is word error rate computed?",
     [("library_search", "speech recognition corpora"), ("extract_list", "dataset"),
      ("library_search", "word error rate computation"),
      ("answer", "Which corpora are used for speech recognition?"), ("answer", "How is word error rate computed?")]),
    ("Compare how the papers segment images.",
     [("library_search", "image segmentation"), ("read_paper", "segmentation method"),
      ("answer", "How do the papers segment images?")]),
    ("Is there new work on arXiv about graph neural networks for molecules?",
     [("library_search", "graph neural networks molecules"), ("arxiv_search", "graph neural networks molecules"),
      ("answer", "What is known about graph neural networks for molecules?")]),
]


def planner_model_path(settings: Any) -> Path | None:
    """The structure model's file (llm.structure_model / llm.planner_model, else SmolLM2); None if none."""
    from paperdesk.core.llm.models import resolve_structure

    choice = resolve_structure(settings)
    return choice.path if choice is not None else None


def schema(tools: tuple[str, ...]) -> dict[str, Any]:
    step = {"type": "object", "properties": {"tool": {"type": "string", "enum": list(tools)},
                                             "query": {"type": "string", "minLength": 3, "maxLength": QUERY_CHARS}},
            "required": ["tool", "query"]}
    return {"type": "object", "properties": {"steps": {"type": "array", "items": step, "minItems": 1,
                                                       "maxItems": MAX_MODEL_STEPS}}, "required": ["steps"]}


def _shot(steps: list[tuple[str, str]]) -> str:
    return json.dumps({"steps": [{"tool": t, "query": q} for t, q in steps]})


def request(backend: Backend, question: str, tools: tuple[str, ...], dialogue: str = "", seed: int = 1
            ) -> GenerationRequest:
    """Few-shot: chat turns when the GGUF has a chat template, a completion prompt otherwise."""
    intro = ("Plan research over a library of papers. Tools: library_search (find passages), read_paper (read each "
             "paper found), extract_list (list dataset/method/metric names), "
             + ("arxiv_search (new work online), " if "arxiv_search" in tools else "")
             + "answer (a cited answer to one sub-question). Reply with JSON steps.")
    context = f"Conversation so far: {' '.join(dialogue.split())[-300:]}\n" if dialogue.strip() else ""
    shots = [(q, s) for q, s in EXAMPLES if all(t in tools for t, _ in s)]
    options = dict(max_tokens=200, temperature=0.3, seed=seed, json_schema=schema(tools), repeat_penalty=1.1)
    if getattr(backend, "chat_template", None):
        messages = [{"role": "system", "content": intro}]
        for q, s in shots:
            messages += [{"role": "user", "content": f"Question: {q}"}, {"role": "assistant", "content": _shot(s)}]
        messages.append({"role": "user", "content": f"{context}Question: {question}"})
        return GenerationRequest(messages=messages, **options)
    prompt = intro + "\n\n" + "".join(f"Question: {q}\nPlan: {_shot(s)}\n\n" for q, s in shots)
    return GenerationRequest(prompt=f"{prompt}{context}Question: {question}\nPlan: ", stop=["\n\n"], **options)


def from_compact(question: str, steps: list[dict[str, Any]], offline: bool, **limits: Any) -> Plan:
    """The model's (tool, query) pairs as a full plan; PlanError when they do not make a sensible one."""
    plan = Plan(question, [])
    passages: list[str] = []
    # Answers go last, so every answer reads all the passages gathered (a small model sometimes
    # puts a read_paper after the answer, where nothing would use it).
    steps = [s for s in steps if s.get("tool") != "answer"] + [s for s in steps if s.get("tool") == "answer"]
    copied = {q.lower() for _, s in EXAMPLES for _, q in s}
    asked = _stems(question)
    for raw in steps:
        tool, query = str(raw.get("tool", "")), " ".join(str(raw.get("query", "")).split())
        step_id = len(plan.steps) + 1
        if query.lower() in copied and tool != "extract_list":  # a kind like "dataset" is no copy
            raise PlanError(f"step {step_id}: the model copied an example's query ({query!r})")
        if tool in ("library_search", "arxiv_search"):
            if not _stems(query) & asked:
                raise PlanError(f"step {step_id}: the search {query!r} shares no word with the question")
            key = f"{'passages' if tool == 'library_search' else 'arxiv'}_{step_id}"
            params: dict[str, Any] = {"query": query}
            if tool == "library_search":
                passages.append(key)
            step = Step(step_id, f"{tool.replace('_', ' ')}: {query}", tool, params, key)
        elif tool in ("read_paper", "extract_list"):
            if not passages:
                raise PlanError(f"step {step_id}: {tool} comes before any library_search")
            if tool == "read_paper":
                step = Step(step_id, f"read each paper found about {query}", tool, {"paper": ITEM, "query": query},
                            f"per_paper_{step_id}", iterate_over=passages[-1])
                passages.append(step.output_key)
            else:
                step = Step(step_id, f"list the {query} names", tool, {"source": passages[-1], "kind": query},
                            f"names_{step_id}")
        elif tool == "answer":
            step = Step(step_id, f"answer: {query}", tool, {"question": query, "inputs": list(passages)},
                        f"answer_{step_id}")
            if not passages:
                step.parameters.pop("inputs")
        else:
            raise PlanError(f"step {step_id}: unknown tool {tool!r}")
        plan.steps.append(step)
    if not any(s.tool == "answer" for s in plan.steps):
        step_id = len(plan.steps) + 1
        params = {"question": question, "inputs": list(passages)} if passages else {"question": question}
        plan.steps.append(Step(step_id, "answer the question", "answer", params, f"answer_{step_id}"))
    validate(plan, offline=offline, **limits)
    return plan


def plan_limit(backend: Backend, asked: Any, floor: float) -> "TimeBudget":
    """The planner call's limit: research.plan_timeout at least, more when the model's measured speed needs it
    for this prompt and reply (llm/time_budget.py), so a slow machine still gets a model plan."""
    from paperdesk.core.llm.time_budget import for_request

    return for_request(backend, asked, floor, floor_key="research.plan_timeout")


class _TooSlow(PaperdeskError):
    """The planner model ran past research.plan_timeout."""


class _Deadline(CancelToken):
    """Cancelled by the user's token or when `seconds` have passed (0: never), checked per token."""

    def __init__(self, user: CancelToken | None, seconds: float) -> None:
        super().__init__()
        self.user = user
        self.end = time.monotonic() + seconds if seconds > 0 else None

    @property
    def cancelled(self) -> bool:
        late = self.end is not None and time.monotonic() > self.end
        return late or (self.user is not None and self.user.cancelled) or super().cancelled


def _stems(text: str) -> set[str]:
    """Content words cut to 5 letters, so "citation" matches "citations" and "citing" matches "cites"."""
    return {w.lower()[:5] for w in re.findall(r"[A-Za-z0-9]+", text) if w.lower() not in STOP}


class Planner:
    """plan(question) -> a valid Plan that records who made it; never raises for a non-empty question."""

    def __init__(self, backend: Backend | None, model_name: str = "", offline: bool = False,
                 max_steps: int = 8, max_iterations: int = 20, timeout: float = 0.0,
                 writer: Backend | None = None, writer_name: str = "") -> None:
        self.backend = backend
        # The writer model gets one try when the structure model's plans fail their checks (a larger
        # model copies the examples less); the same model twice would fail the same way, and with no
        # planner model at all (research by rules) no model plans.
        self.writer = writer if backend is not None and writer is not backend else None
        self.writer_name = writer_name or getattr(writer, "name", "writer")
        self.timeout = timeout  # seconds the model may take per attempt (0: no limit); then rules plan
        self.model_name = model_name or getattr(backend, "name", "model")
        self.offline = offline
        self.limits = {"max_steps": max_steps, "max_iterations": max_iterations}

    def plan(self, question: str, dialogue: str = "", cancel: CancelToken | None = None,
             use_model: bool = True) -> Plan:
        question = " ".join(question.split())
        if not question:
            raise PlanError("research needs a question, e.g. research how do readers use citations?")
        start = time.perf_counter()
        reasons: list[str] = []
        tools = tuple(t for t in MODEL_TOOLS if not (self.offline and t == "arxiv_search"))
        tries = [(self.backend, self.model_name, seed) for seed in (1, 2)] + [(self.writer, self.writer_name, 1)]
        for backend, name, seed in tries if use_model else []:
            if backend is None:
                continue
            try:
                plan = self._model_plan(backend, name, question, tools, dialogue, seed, cancel)
                if reasons:
                    plan.notes.append(f"the structure model's plan was rejected ({reasons[-1]}); "
                                      f"the writer model {name} made this one")
                plan.notes.append(f"planned in {time.perf_counter() - start:.1f} s")
                return plan
            except CancelledError:
                raise
            except _TooSlow as exc:  # another try would be as slow: the rules answer at once
                reasons.append(str(exc))
                break
            except (PaperdeskError, ValueError, KeyError, TypeError) as exc:
                reasons.append(" ".join(str(exc).split())[:160])
        plan = self._rules(question)
        if reasons:
            plan.notes.append(f"model plan rejected ({reasons[-1]}); rules made this one")
        plan.notes.append(f"planned in {time.perf_counter() - start:.1f} s")
        return plan

    def _model_plan(self, backend: Backend, name: str, question: str, tools: tuple[str, ...], dialogue: str,
                    seed: int, cancel: CancelToken | None) -> Plan:
        asked = request(backend, question, tools, dialogue, seed)
        limit = plan_limit(backend, asked, self.timeout)
        token = _Deadline(cancel, limit.seconds if self.timeout > 0 else 0.0)
        result = generate(backend, asked, cancel=token)
        if cancel is not None and cancel.cancelled:
            raise CancelledError("cancelled")
        if result.cancelled:
            raise _TooSlow(f"the planner model took over {limit.describe()}")
        try:
            data = json.loads(result.text)
        except json.JSONDecodeError as exc:
            raise PlanError(f"the model's plan is not JSON ({exc.msg})") from None
        plan = from_compact(question, list(data.get("steps") or []), self.offline, **self.limits)
        plan.made_by = f"model:{name}"
        return plan

    def _rules(self, question: str) -> Plan:
        try:
            return rule_plan(question, offline=self.offline, **self.limits)
        except PlanError:  # a tight research.max_steps: the sub-questions that fit, and what was dropped
            from paperdesk.core.research import caps

            try:
                full = rule_plan(question, offline=self.offline, **{**self.limits, "max_steps": 100})
            except PlanError:
                full = None
            cut = caps.fit(full, self.limits["max_steps"]) if full is not None else None
            if cut is not None:
                validate(cut, offline=self.offline, **self.limits)
                return cut
            plan = Plan(question, [Step(1, "answer the question", "answer", {"question": question}, "answer_1")],
                        made_by="rules")
            if full is not None:  # the smallest plan that still answers; it says what it leaves out
                plan.dropped = caps.dropped_for_minimal(full, self.limits["max_steps"])
                if plan.dropped:
                    plan.notes.append(caps.dropped_note(plan))
            validate(plan, offline=self.offline, **self.limits)
            return plan
