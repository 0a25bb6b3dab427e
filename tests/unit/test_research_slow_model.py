"""A slow model never costs the user's plan: a step past its time limit is retried once with less evidence,
then marked FAILED and named in the report, which is built from the steps that finished.

The writer is SlowStandInLLM, a STAND-IN backend, NOT a model: it replies with a fixed sentence, and for a
prompt holding its `slow_on` words it first sleeps (checking the cancel token, as the real backends do).
The tools are stand-ins too: the answer stand-in writes through the run's writer (so the time limit sees
each model call) from the first `ctx.k` passages it is given. The tracker is the real SQLite one.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Iterator

import pytest

from paperdesk.core.config import load_settings
from paperdesk.core.errors import CancelledError
from paperdesk.core.llm import speeds
from paperdesk.core.llm.backend import Capabilities, GenerationRequest, generate
from paperdesk.core.research import Backends, Researcher, Tracker
from paperdesk.core.research.plan import COMPLETED, FAILED, Plan, Step
from paperdesk.core.research.tracker import WHOLE

SLOW_QUESTION = "How does CiteSee show citations?"
FAST_QUESTION = "Which papers does CiteSee build on?"


class SlowStandInLLM:
    """A stand-in backend (not a model): a fixed reply; prompts holding `slow_on` first sleep `seconds`."""

    name = "slow-stand-in"
    chat_template = None
    capabilities = Capabilities(streams=True, json_schema=False)

    def __init__(self, slow_on: str, seconds: float, text: str = "CiteSee builds on reading research.",
                 model_path: Path | None = None) -> None:
        self.slow_on, self.seconds, self.text = slow_on, seconds, text
        self.requests: list[GenerationRequest] = []
        if model_path is not None:
            self.model_path = model_path

    def warm_up(self) -> None:
        """Nothing to load."""

    def stream(self, request: GenerationRequest, cancel=None) -> Iterator[tuple[str, str | None]]:
        self.requests.append(request)
        if self.slow_on in (request.prompt or ""):
            end = time.monotonic() + self.seconds
            while time.monotonic() < end:
                if cancel is not None and cancel.cancelled:
                    return  # generate() sees the token and marks the reply cancelled
                time.sleep(0.01)
                yield "", None
        for i, word in enumerate(self.text.split(" ")):
            yield (word if i == 0 else " " + word), None
        yield "", "stop"

    def slow_requests(self) -> int:
        return sum(self.slow_on in (r.prompt or "") for r in self.requests)


class StandInTools:
    """Stand-in tools: the search returns `k` passages; the answer writes through ctx.writer from ctx.k of them."""

    def __init__(self) -> None:
        self.answers: list[tuple[str, int, int]] = []  # (question, ctx.k, passages in the prompt)

    def table(self) -> dict:
        def search(ctx, params, inputs):
            k = int(params.get("k") or ctx.k)
            return {"passages": [{"paper_id": "p1", "title": "CiteSee", "page": n + 1, "chunk_id": n + 1,
                                  "text": f"passage {n + 1} on citations"} for n in range(k)]}

        def answer(ctx, params, inputs):
            pool = [p for key in params.get("inputs") or [] for p in (inputs.get(key) or {}).get("passages", [])]
            used = pool[: ctx.k]
            self.answers.append((params["question"], ctx.k, len(used)))
            prompt = f"Question: {params['question']}\n" + "\n".join(p["text"] for p in used) + "\nAnswer:"
            result = generate(ctx.writer, GenerationRequest(prompt=prompt, max_tokens=20), cancel=ctx.cancel)
            if result.cancelled:
                raise CancelledError("cancelled")
            cite = {**used[0], "n": 1, "quote": used[0]["text"]}
            return {"question": params["question"], "text": f"{result.text} [1]", "citations": [cite],
                    "sources": used, "supported": True}

        return {"library_search": search, "answer": answer}


def settings_with(tmp_path: Path, **env: str):
    env = {"research_max_extra_calls": "0", **env}  # the agent loop is not what these tests are about
    return load_settings(environ={f"PAPERDESK_{k.upper()}": v for k, v in env.items()}, path=tmp_path / "absent.toml")


def two_answer_plan() -> Plan:
    return Plan("How does CiteSee show citations, and which papers does it build on?", [
        Step(1, "search", "library_search", {"query": "CiteSee citations"}, "found"),
        Step(2, "answer how", "answer", {"question": SLOW_QUESTION, "inputs": ["found"]}, "shown"),
        Step(3, "answer which", "answer", {"question": FAST_QUESTION, "inputs": ["found"]}, "built_on"),
    ])


def test_a_step_past_its_limit_fails_alone_and_the_report_is_built_from_the_rest(tmp_path):
    writer = SlowStandInLLM(slow_on="show citations", seconds=10.0)
    tools = StandInTools()
    tracker = Tracker(tmp_path / "runs.sqlite")
    r = Researcher(None, Backends(writer), tracker, settings=settings_with(tmp_path, research_step_timeout="0.3"),
                   tools=tools.table())  # type: ignore[arg-type]
    plan = two_answer_plan()
    events: list = []
    try:
        result = r.run(plan, on_event=events.append)
        rows = {t.step_id: t for t in tracker.tasks(result.run_id) if t.iteration == WHOLE}
        run = tracker.run(result.run_id)
    finally:
        tracker.close()
    # the user's plan is what ran and what the report is from: nothing replaced it
    assert not result.fallback and not run.fallback and run.status == COMPLETED
    assert [(s.id, s.tool) for s in result.plan.steps] == [(1, "library_search"), (2, "answer"), (3, "answer")]
    assert "one library search" not in result.report and "one-round" not in result.report
    assert (rows[1].status, rows[2].status, rows[3].status) == (COMPLETED, FAILED, COMPLETED)
    assert rows[2].error.startswith("stopped by the step limit of 0.3 s (research.step_timeout")
    # the failed step is named in a part of its own, with the limit that stopped it
    assert "## Steps that failed" in result.report
    assert f"- step 2 (answer) failed: {rows[2].error}; not answered: {SLOW_QUESTION}\n" in result.report
    assert result.failed == [{"id": 2, "tool": "answer", "status": "failed", "why": rows[2].error,
                              "question": SLOW_QUESTION}]
    assert run.error.startswith("step 2 (answer) failed: stopped by the step limit")
    # the other steps' findings are in it; the failed step's question is said to be unanswered
    assert f"## {FAST_QUESTION}\n\nCiteSee builds on reading research. [1]" in result.report
    assert result.citations and result.citations[0]["chunk_id"] == 1
    assert result.unanswered == [SLOW_QUESTION]
    retry = [e.message for e in events if e.kind == "step_retry"]
    assert retry and retry[0].startswith("step 2 (answer): stopped by the step limit of 0.3 s")


def test_the_retry_reads_half_the_evidence_and_happens_once(tmp_path):
    writer = SlowStandInLLM(slow_on="show citations", seconds=10.0)
    tools = StandInTools()
    tracker = Tracker(tmp_path / "runs.sqlite")
    r = Researcher(None, Backends(writer), tracker, settings=settings_with(tmp_path, research_step_timeout="0.3"),
                   tools=tools.table())  # type: ignore[arg-type]
    try:
        result = r.run(two_answer_plan())
        attempts = tracker.task(result.run_id, 2, WHOLE).attempts
    finally:
        tracker.close()
    slow = [(k, used) for question, k, used in tools.answers if question == SLOW_QUESTION]
    assert slow == [(5, 5), (2, 2)]  # answer.k 5, then half of it, once
    assert writer.slow_requests() == 2 and attempts == 2
    assert [(k, used) for question, k, used in tools.answers if question == FAST_QUESTION] == [(5, 5)]
    assert "also when tried again with less evidence (k 2 instead of 5)" in result.report


def test_a_plan_whose_only_answer_fails_is_still_reported_from_its_own_steps(tmp_path):
    writer = SlowStandInLLM(slow_on="Question", seconds=10.0)  # every answer is too slow
    tracker = Tracker(tmp_path / "runs.sqlite")
    r = Researcher(None, Backends(writer), tracker, settings=settings_with(tmp_path, research_step_timeout="0.2"),
                   tools=StandInTools().table())  # type: ignore[arg-type]
    plan = Plan(SLOW_QUESTION, [
        Step(1, "search", "library_search", {"query": "CiteSee citations"}, "found"),
        Step(2, "answer", "answer", {"question": SLOW_QUESTION, "inputs": ["found"]}, "shown"),
    ])
    try:
        result = r.run(plan)
    finally:
        tracker.close()
    assert not result.fallback and result.report.startswith(f"# {SLOW_QUESTION}")
    assert "## Steps that failed" in result.report and "- step 2 (answer) failed: stopped by" in result.report
    assert f"; not answered: {SLOW_QUESTION}" in result.report and result.unanswered == [SLOW_QUESTION]
    assert [row["status"] for row in result.steps] == [COMPLETED, FAILED]


def test_a_model_measured_slow_on_this_machine_gets_the_time_it_needs(tmp_path, monkeypatch):
    """The same slow call stops at the floor for a model of unknown speed and finishes for one measured slow."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    model = tmp_path / "stand-in.gguf"
    model.write_bytes(b"not a model")  # a stand-in file: only its measured speed is read
    speeds.record(model, {"decode_tps": 10.0, "prompt_tps": 100.0, "source": "bench llm"})  # 20 tokens: ~3 s
    plan = Plan(SLOW_QUESTION, [
        Step(1, "search", "library_search", {"query": "CiteSee citations"}, "found"),
        Step(2, "answer", "answer", {"question": SLOW_QUESTION, "inputs": ["found"]}, "shown"),
    ])
    for path, status in ((None, FAILED), (model, COMPLETED)):
        writer = SlowStandInLLM(slow_on="show citations", seconds=0.8, model_path=path)
        tracker = Tracker(tmp_path / f"runs-{status}.sqlite")
        r = Researcher(None, Backends(writer), tracker, settings=settings_with(tmp_path, research_step_timeout="0.2"),
                       tools=StandInTools().table())  # type: ignore[arg-type]
        try:
            result = r.run(plan)
        finally:
            tracker.close()
        assert [row["status"] for row in result.steps][:2] == [COMPLETED, status], path


@pytest.mark.slow  # the real embedding model: the closest passages are found and quoted
def test_with_nothing_supported_the_report_quotes_the_closest_passages(library, citesee_pdf, tmp_path):
    from paperdesk.core.research.tools import ToolContext, library_search

    library.add_pdf(citesee_pdf)
    question = "how do readers keep track of citations they already know?"

    def search(ctx, params, inputs):
        return library_search(ToolContext(library, None, library.settings, k=5), params, inputs)

    tools = {**StandInTools().table(), "library_search": search}
    writer = SlowStandInLLM(slow_on="Question", seconds=60.0)
    # room for the real search on a busy machine; the stand-in answer needs more than any limit
    settings = library.settings.with_overrides(research__step_timeout=3.0, research__max_extra_calls=0)
    tracker = Tracker(tmp_path / "runs.sqlite")
    r = Researcher(library, Backends(writer), tracker, settings=settings, tools=tools)
    plan = Plan(question, [
        Step(1, "search", "library_search", {"query": "citations readers already know"}, "found"),
        Step(2, "answer", "answer", {"question": question, "inputs": ["found"]}, "shown"),
    ])
    try:
        result = r.run(plan)
    finally:
        tracker.close()
    assert not result.fallback and "No generated answer held up" in result.report  # what it could not find
    assert result.citations and all(c["paper_id"] for c in result.citations)  # the closest passages, quoted
    assert "## Steps that failed" in result.report and "- step 2 (answer) failed: stopped by" in result.report


def test_a_search_with_its_own_k_is_retried_with_half_of_it(tmp_path):
    from paperdesk.core.research.engine import Executor
    from paperdesk.core.research.tools import ToolContext

    seen: list[int] = []

    def search(ctx, params, inputs):  # a stand-in search: too slow while it is asked for more than 3 passages
        seen.append(int(params["k"]))
        end = time.monotonic() + (10.0 if params["k"] > 3 else 0.0)
        while time.monotonic() < end and not ctx.cancel.cancelled:
            time.sleep(0.01)
        return {"passages": [{"paper_id": "p1", "page": 1, "chunk_id": n, "text": "t"} for n in range(params["k"])]}

    plan = Plan("What is CiteSee?", [Step(1, "search", "library_search", {"query": "CiteSee", "k": 6}, "found")])
    tracker = Tracker(tmp_path / "runs.sqlite")
    executor = Executor(tracker, lambda token: ToolContext(None, None, {"offline": True}, token),  # type: ignore
                        tools={"library_search": search}, step_timeout=0.2)
    try:
        run_id = tracker.new_run(plan)
        out = executor.execute(run_id, plan)
        executor.settle()
        task = tracker.task(run_id, 1, WHOLE)
    finally:
        tracker.close()
    assert seen == [6, 3] and task.status == COMPLETED and task.attempts == 2
    assert len(out.results["found"]["passages"]) == 3
