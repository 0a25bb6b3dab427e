"""Two failure paths of a research run: every step failing (the plan is kept and reports its failures) and the
whole-run timeout.

The tools are stand-ins (control flow only): BrokenTools raise on every call, SlowTools sleep. The tracker
is the real SQLite one. The writer is FakeLLM (tests/fake_llm.py), a stand-in text generator, NOT a model:
no step reaches it, and no other pipeline may either.
"""

from __future__ import annotations

import time

from fake_llm import FakeLLM
from paperdesk.core.research import Backends, Researcher, Tracker
from paperdesk.core.research.engine import Executor
from paperdesk.core.research.plan import COMPLETED, FAILED, SKIPPED, Plan, Step
from paperdesk.core.research.rules import rule_plan
from paperdesk.core.research.tools import ToolContext
from paperdesk.core.research.tracker import WHOLE


class BrokenTools:
    """Stand-in tools that all raise: the run has no passages and no answer at all."""

    def __init__(self) -> None:
        self.calls: list[str] = []

    def table(self) -> dict:
        def broken(name: str):
            def run(ctx, params, inputs):
                self.calls.append(name)
                raise RuntimeError(f"{name} stand-in broke")

            return run

        return {n: broken(n) for n in ("library_search", "read_paper", "paper_summary", "arxiv_search",
                                       "extract_list", "answer")}


def test_every_step_failing_keeps_the_plan_and_the_report_names_each_failed_step(tmp_path, settings):
    tools = BrokenTools()
    writer = FakeLLM("CiteSee highlights the citations a reader has already seen.")
    tracker = Tracker(tmp_path / "runs.sqlite")
    researcher = Researcher(None, Backends(writer), tracker, settings=settings,  # type: ignore[arg-type]
                            tools=tools.table())
    plan = rule_plan("How does CiteSee help readers track citations?")
    try:
        result = researcher.run(plan)
        row = tracker.run(result.run_id)
    finally:
        tracker.close()
    assert tools.calls == ["library_search", "library_search", "answer", "answer"]  # each step: once, retry once
    assert not result.fallback and not row.fallback and row.status == COMPLETED
    assert writer.requests == []  # no other pipeline wrote a report in the plan's place
    assert row.error == ("step 1 (library_search) failed: library_search stand-in broke; "
                         "step 2 (answer) failed: answer stand-in broke")
    question = plan.steps[1].parameters["question"]
    assert ("## Steps that failed\n\nThe report is built from the steps that finished; these gave nothing:\n"
            "- step 1 (library_search) failed: library_search stand-in broke\n"
            f"- step 2 (answer) failed: answer stand-in broke; not answered: {question}\n") in result.report
    assert row.report == result.report and result.unanswered == [question]
    assert [(s["id"], s["status"]) for s in result.steps] == [(1, FAILED), (2, FAILED)]
    assert result.citations == []  # nothing was found, so nothing is cited


class SlowTools:
    def __init__(self, seconds: float) -> None:
        self.seconds = seconds
        self.calls: list[str] = []

    def table(self) -> dict:
        def search(ctx, params, inputs):
            self.calls.append("library_search")
            time.sleep(self.seconds)
            return {"passages": [{"paper_id": "p1", "page": 1, "chunk_id": 1, "text": "t"}]}

        def answer(ctx, params, inputs):
            self.calls.append("answer")
            return {"question": params["question"], "text": "x", "citations": [], "supported": True}

        return {"library_search": search, "answer": answer}


def test_the_whole_run_timeout_skips_the_later_steps_with_the_reason(tmp_path):
    plan = Plan("What is CiteSee?", [
        Step(1, "search", "library_search", {"query": "CiteSee"}, "found"),
        Step(2, "search again", "library_search", {"query": "CiteSee readers"}, "more"),
        Step(3, "answer", "answer", {"question": "What is CiteSee?", "inputs": ["found", "more"]}, "ans"),
    ])
    tools = SlowTools(seconds=0.3)
    tracker = Tracker(tmp_path / "runs.sqlite")
    events = []
    executor = Executor(tracker, lambda token: ToolContext(None, None, {"offline": True}, token),  # type: ignore
                        tools=tools.table(), step_timeout=5.0, run_timeout=0.1, on_event=events.append)
    try:
        run_id = tracker.new_run(plan)
        out = executor.execute(run_id, plan)
        rows = {t.step_id: t for t in tracker.tasks(run_id) if t.iteration == WHOLE}
    finally:
        tracker.close()
    assert tools.calls == ["library_search"]  # step 1 ran past the run's limit; nothing after it started
    why = "the run passed its 0.1 s (research.run_timeout) limit"
    assert rows[1].status == COMPLETED and "found" in out.results
    assert [(rows[i].status, rows[i].error) for i in (2, 3)] == [(SKIPPED, why), (SKIPPED, why)]
    assert out.skipped == {2: why, 3: why}
    assert [(e.step_id, e.message) for e in events if e.kind == "step_skipped"] == [(2, why), (3, why)]


def test_a_run_on_a_slow_writer_gets_its_steps_time_at_the_measured_speed(tmp_path):
    """The run's limit is research.run_timeout, or n + 1 answer steps at the writer's speed when that is more."""
    plan = Plan("What is CiteSee?", [Step(1, "search", "library_search", {"query": "CiteSee"}, "found"),
                                     Step(2, "search again", "library_search", {"query": "CiteSee readers"}, "more")])
    tools = SlowTools(seconds=0.3)
    tracker = Tracker(tmp_path / "runs.sqlite")
    executor = Executor(tracker, lambda token: ToolContext(None, None, {"offline": True}, token),  # type: ignore
                        tools=tools.table(), step_timeout=5.0, run_timeout=0.1, step_seconds=0.5)
    try:
        out = executor.execute(tracker.new_run(plan), plan)
    finally:
        tracker.close()
    assert tools.calls == ["library_search", "library_search"] and not out.skipped  # 1.5 s for 2 steps + report
    assert executor.limit_text() == "1.5 s (2 steps and the report at ~0.5 s each at the writer's measured speed)"
