"""Two failure paths of a research run: every step failing (the one-round fallback) and the whole-run timeout.

The tools are stand-ins (control flow only): BrokenTools raise on every call, SlowTools sleep. The tracker
is the real SQLite one. The fallback's one-round pipeline searches a real library (the CiteSee fixture PDF,
the real embedding model); its writer is FakeLLM (tests/fake_llm.py), a stand-in text generator, NOT a model.
"""

from __future__ import annotations

import time

import pytest

from fake_llm import FakeLLM
from paperdesk.core.research import Backends, Researcher, Tracker
from paperdesk.core.research.engine import Executor
from paperdesk.core.research.plan import COMPLETED, FAILED, SKIPPED, Plan, Step
from paperdesk.core.research.researcher import FALLBACK_NOTE
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


@pytest.mark.slow  # the real embedding model searches the library in the fallback
def test_every_step_failing_falls_back_to_the_one_round_pipeline(library, citesee_pdf, tmp_path):
    library.add_pdf(citesee_pdf)
    tools = BrokenTools()
    writer = FakeLLM("CiteSee highlights the citations a reader has already seen.")
    tracker = Tracker(tmp_path / "runs.sqlite")
    researcher = Researcher(library, Backends(writer), tracker, tools=tools.table())
    plan = rule_plan("How does CiteSee help readers track citations?")
    events = []
    try:
        result = researcher.run(plan, on_event=events.append)
        row = tracker.run(result.run_id)
    finally:
        tracker.close()
    assert tools.calls == ["library_search", "library_search", "answer", "answer"]  # each step: once, retry once
    assert result.fallback and row.fallback and row.status == COMPLETED
    assert row.error == "step 1: library_search stand-in broke; step 2: answer stand-in broke"
    note = FALLBACK_NOTE.format(why=row.error)
    assert f"_{note}_" in result.report and row.report == result.report
    assert any(e.kind == "note" and e.message == note for e in events)  # the user is told while it happens
    assert [(s["id"], s["status"]) for s in result.steps] == [(1, FAILED), (2, FAILED)]
    assert len(writer.requests) == 1 and "CiteSee highlights the citations" in result.report  # one writer call
    assert result.citations and all(c["paper_id"] for c in result.citations)  # cited from the library search


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
    why = "the run passed its 0.1 s limit"
    assert rows[1].status == COMPLETED and "found" in out.results
    assert [(rows[i].status, rows[i].error) for i in (2, 3)] == [(SKIPPED, why), (SKIPPED, why)]
    assert out.skipped == {2: why, 3: why}
    assert [(e.step_id, e.message) for e in events if e.kind == "step_skipped"] == [(2, why), (3, why)]
