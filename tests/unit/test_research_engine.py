"""The execution engine's orchestration: order, iteration, cap, timeout, retry, skip, cancel, resume.

The tools here are stand-ins that record their calls (this is about control flow, not retrieval);
the tracker is the real SQLite one. The planner's model path is driven by FakeLLM (tests/fake_llm.py),
which is NOT a model: it replays fixed text, to check validation, retry and the rule fallback.
"""

from __future__ import annotations

import json
import threading
import time
from pathlib import Path

import pytest

from fake_llm import FakeLLM
from paperdesk.core.cancel import CancelToken
from paperdesk.core.errors import CancelledError
from paperdesk.core.research.engine import Executor, reformulate
from paperdesk.core.research.plan import COMPLETED, FAILED, ITEM, PENDING, SKIPPED, Plan, Step
from paperdesk.core.research.planner import Planner
from paperdesk.core.research.tracker import WHOLE, Tracker


class Recorder:
    """Tool stand-ins that log (tool, params) and return structured results."""

    def __init__(self) -> None:
        self.calls: list[tuple[str, dict]] = []
        self.fail_first: set[str] = set()
        self.always_fail: set[str] = set()
        self.slow: dict[str, float] = {}
        self.stopped_early = 0  # calls that saw their step's cancel token and gave up

    def tool(self, name: str):
        def run(ctx, params, inputs):
            self.calls.append((name, dict(params)))
            end = time.monotonic() + self.slow.get(name, 0.0)
            while time.monotonic() < end:  # a cooperative tool, like the model backends
                if ctx.cancel.cancelled:
                    self.stopped_early += 1
                    raise CancelledError("cancelled")
                time.sleep(0.005)
            if name in self.always_fail or (name in self.fail_first and sum(c[0] == name for c in self.calls) == 1):
                raise RuntimeError(f"{name} broke")
            if name == "library_search":
                return {"passages": [{"paper_id": p, "page": 1, "chunk_id": i, "text": "t"}
                                     for i, p in enumerate(["p1", "p2", "p3", "p1"])]}
            if name == "read_paper":
                return {"paper_id": params["paper"], "passages": [{"paper_id": params["paper"], "chunk_id": 9}]}
            return {"question": params.get("question", ""), "text": "x", "citations": [], "supported": True}

        return run

    def tools(self):
        return {n: self.tool(n) for n in ("library_search", "read_paper", "paper_summary", "arxiv_search",
                                          "extract_list", "answer")}


def compare_plan() -> Plan:
    return Plan("Compare the papers", [
        Step(3, "answer", "answer", {"question": "Compare?", "inputs": ["found", "per"]}, "ans"),
        Step(2, "read", "read_paper", {"paper": ITEM, "query": "tables"}, "per", iterate_over="found"),
        Step(1, "search", "library_search", {"query": "tables"}, "found"),
    ])


@pytest.fixture
def tracker(tmp_path: Path):
    t = Tracker(tmp_path / "library.sqlite")
    yield t
    t.close()


def executor(tracker, rec, **kw) -> Executor:
    from paperdesk.core.research.tools import ToolContext

    return Executor(tracker, lambda token: ToolContext(None, None, {"offline": True}, token),  # type: ignore[arg-type]
                    tools=rec.tools(), **kw)


def test_dependency_order_and_iteration_over_distinct_papers(tracker):
    rec, plan = Recorder(), compare_plan()
    run_id = tracker.new_run(plan)
    out = executor(tracker, rec).execute(run_id, plan)
    assert [c[0] for c in rec.calls] == ["library_search", "read_paper", "read_paper", "read_paper", "answer"]
    assert [c[1]["paper"] for c in rec.calls if c[0] == "read_paper"] == ["p1", "p2", "p3"]
    assert [i["item"] for i in out.results["per"]["iterations"]] == ["p1", "p2", "p3"]
    rows = {(t.step_id, t.iteration): t.status for t in tracker.tasks(run_id)}
    assert rows[(2, 0)] == rows[(2, 2)] == rows[(2, WHOLE)] == COMPLETED
    assert tracker.results(run_id)["per"]["passages"][0]["paper_id"] == "p1"


def test_iteration_cap_truncates_and_notes_it(tracker):
    rec, plan = Recorder(), compare_plan()
    out = executor(tracker, rec, max_iterations=2).execute(tracker.new_run(plan), plan)
    assert sum(c[0] == "read_paper" for c in rec.calls) == 2
    assert "ran for 2 of 3 items" in out.notes[0]


def test_a_failing_step_is_retried_once(tracker):
    rec, plan = Recorder(), compare_plan()
    rec.fail_first.add("library_search")
    run_id = tracker.new_run(plan)
    executor(tracker, rec).execute(run_id, plan)
    task = tracker.task(run_id, 1, WHOLE)
    assert task.status == COMPLETED and task.attempts == 2


def test_failed_twice_is_failed_with_error_and_dependents_are_skipped(tracker):
    rec, plan = Recorder(), compare_plan()
    rec.always_fail.add("library_search")
    run_id = tracker.new_run(plan)
    out = executor(tracker, rec).execute(run_id, plan)
    first = tracker.task(run_id, 1, WHOLE)
    assert first.status == FAILED and first.error == "library_search broke" and first.attempts == 2
    assert tracker.task(run_id, 2, WHOLE).status == SKIPPED and 2 in out.skipped
    # an answer whose inputs all failed still runs: it searches for its own question
    assert tracker.task(run_id, 3, WHOLE).status == COMPLETED and "ans" in out.results


def test_the_run_goes_on_when_synthesis_still_has_inputs(tracker):
    rec, plan = Recorder(), compare_plan()
    rec.always_fail.add("read_paper")
    run_id = tracker.new_run(plan)
    out = executor(tracker, rec).execute(run_id, plan)
    assert tracker.task(run_id, 2, WHOLE).status == FAILED
    assert tracker.task(run_id, 3, WHOLE).status == COMPLETED and "ans" in out.results


def test_step_timeout_stops_the_tool_and_counts_as_a_failure(tracker):
    rec, plan = Recorder(), compare_plan()
    rec.slow["library_search"] = 5.0
    run_id = tracker.new_run(plan)
    ex = executor(tracker, rec, step_timeout=0.2)
    ex.execute(run_id, plan)
    ex.settle()
    task = tracker.task(run_id, 1, WHOLE)
    assert task.status == FAILED and task.attempts == 2
    assert task.error.startswith("stopped by the step limit of 0.2 s (research.step_timeout")  # names the limit
    assert "also when tried again with less evidence (k 2 instead of 5)" in task.error
    assert rec.stopped_early == 2  # each timed-out call was told to stop, not left running


def test_cancel_inside_a_step_lands_fast_and_leaves_it_pending(tracker):
    rec, plan = Recorder(), compare_plan()
    rec.slow["read_paper"] = 5.0
    cancel = CancelToken()
    run_id = tracker.new_run(plan)
    ex = executor(tracker, rec, cancel=cancel)

    def press_esc():
        while not any(c[0] == "read_paper" for c in rec.calls):
            time.sleep(0.005)
        time.sleep(0.05)
        cancel.cancel()

    threading.Thread(target=press_esc).start()
    with pytest.raises(CancelledError):
        ex.execute(run_id, plan)
    # control came back while the 5 s step was still unwinding: the cancel did not wait for the step
    assert ex.inflight is not None
    ex.settle()
    assert rec.stopped_early == 1
    assert tracker.task(run_id, 1, WHOLE).status == COMPLETED
    assert tracker.task(run_id, 2, 0).status == PENDING
    # resuming redoes nothing that finished
    rec2 = Recorder()
    tracker.reopen(run_id)
    executor(tracker, rec2).execute(run_id, plan)
    assert [c[0] for c in rec2.calls] == ["read_paper"] * 3 + ["answer"]


def test_cancel_between_steps(tracker):
    rec, plan = Recorder(), compare_plan()
    cancel = CancelToken()
    cancel.cancel()
    with pytest.raises(CancelledError):
        executor(tracker, rec, cancel=cancel).execute(tracker.new_run(plan), plan)
    assert rec.calls == []


def test_reformulate_keeps_content_words_and_adds_topic():
    assert reformulate("Which datasets are used?", "evaluating PDF parsers") == "datasets used evaluating PDF parsers"


# -- planner orchestration with FakeLLM (not a model: fixed text) --------------------------------

GOOD = json.dumps({"steps": [{"tool": "library_search", "query": "citation reading"},
                             {"tool": "answer", "query": "How do readers use citations?"}]})


def test_planner_uses_a_valid_model_plan_and_records_who_made_it():
    plan = Planner(FakeLLM(GOOD), "fake").plan("How do readers use citations?")
    assert plan.made_by == "model:fake"
    assert [s.tool for s in plan.steps] == ["library_search", "answer"]
    assert plan.steps[1].parameters["inputs"] == ["passages_1"]


@pytest.mark.parametrize("text, reason", [
    ("a paper that is a paper that is", "not JSON"),
    (json.dumps({"steps": [{"tool": "library_search", "query": "dropout overfitting"}]}), "copied an example"),
    (json.dumps({"steps": [{"tool": "library_search", "query": "bananas"}]}), "shares no word"),
    (json.dumps({"steps": [{"tool": "extract_list", "query": "dataset"}]}), "before any library_search"),
])
def test_planner_retries_once_then_falls_back_to_rules(text, reason):
    llm = FakeLLM(text)
    plan = Planner(llm, "fake").plan("How do readers use citations?")
    assert plan.made_by == "rules" and len(llm.requests) == 2
    assert any(reason in note for note in plan.notes)
    assert llm.requests[0].json_schema["properties"]["steps"]["maxItems"] == 5
    assert llm.requests[0].seed != llm.requests[1].seed


def test_the_writer_model_plans_when_the_structure_models_plans_fail_their_checks():
    structure = FakeLLM(json.dumps({"steps": [{"tool": "library_search", "query": "image segmentation"}]}))
    writer = FakeLLM(GOOD)
    plan = Planner(structure, "fake-structure", writer=writer, writer_name="fake-writer").plan(
        "How do readers use citations?")
    assert len(structure.requests) == 2 and len(writer.requests) == 1
    assert plan.made_by == "model:fake-writer"
    assert any("copied an example" in n and "writer model fake-writer" in n for n in plan.notes)


def test_the_rules_plan_when_the_writer_model_fails_too_and_one_model_is_not_asked_twice():
    bad = FakeLLM("not a plan")
    plan = Planner(bad, "fake", writer=bad).plan("How do readers use citations?")
    assert plan.made_by == "rules" and len(bad.requests) == 2  # the same model as writer: no third try
    writer = FakeLLM("still not a plan")
    plan = Planner(FakeLLM("not a plan"), "fake", writer=writer).plan("How do readers use citations?")
    assert plan.made_by == "rules" and len(writer.requests) == 1
    writer = FakeLLM(GOOD)
    plan = Planner(None, writer=writer).plan("How do readers use citations?")
    assert plan.made_by == "rules" and not writer.requests  # no planner model: research plans by rules


def test_planner_offline_offers_no_online_tool_and_rejects_one():
    llm = FakeLLM(json.dumps({"steps": [{"tool": "arxiv_search", "query": "citations"}]}))
    plan = Planner(llm, "fake", offline=True).plan("new work on citations?")
    enum = llm.requests[0].json_schema["properties"]["steps"]["items"]["properties"]["tool"]["enum"]
    assert "arxiv_search" not in enum and plan.made_by == "rules"


def test_a_slow_planner_model_is_cut_off_and_the_rules_answer_at_once():
    llm = FakeLLM(GOOD, delay=0.05)  # ~1 s for the whole plan
    plan = Planner(llm, "fake", timeout=0.2).plan("How do readers use citations?")
    assert plan.made_by == "rules" and len(llm.requests) == 1  # no second, equally slow try
    assert any("took over 0.2 s" in n for n in plan.notes)
    assert llm.started.is_set()  # it was cut off mid-stream, not refused up front


def test_the_users_cancel_stops_planning():
    llm = FakeLLM(GOOD, delay=0.05)
    cancel = CancelToken()
    threading.Timer(0.1, cancel.cancel).start()
    with pytest.raises(CancelledError):
        Planner(llm, "fake").plan("How do readers use citations?", cancel=cancel)


def test_model_steps_after_an_answer_are_moved_before_it():
    text = json.dumps({"steps": [{"tool": "library_search", "query": "citation reading"},
                                 {"tool": "answer", "query": "How do readers use citations?"},
                                 {"tool": "read_paper", "query": "citation reading"}]})
    plan = Planner(FakeLLM(text), "fake").plan("How do readers use citations?")
    assert [s.tool for s in plan.steps] == ["library_search", "read_paper", "answer"]
    assert plan.steps[-1].parameters["inputs"] == ["passages_1", "per_paper_2"]


def test_bench_judge_refuses_a_step_that_feeds_nothing():
    from paperdesk.bench.research_plan import acceptable
    from paperdesk.core.research.rules import rule_plan

    label = {"question": "How do readers use citations?", "require": ["library_search", "answer"], "forbid": []}
    plan = rule_plan(label["question"])
    assert acceptable(plan, label) == (True, "")
    plan.steps.insert(1, Step(9, "x", "library_search", {"query": "citations"}, "orphan"))
    assert acceptable(plan, label) == (False, "step 9 feeds nothing")


def test_a_planner_model_measured_slow_gets_the_time_its_plan_needs(tmp_path, monkeypatch):
    """Cut off at research.plan_timeout when its speed is unknown; given the time its measured speed needs."""
    from paperdesk.core.llm import speeds

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    model = tmp_path / "stand-in.gguf"
    model.write_bytes(b"not a model")  # a stand-in file: only its measured speed is read
    speeds.record(model, {"decode_tps": 40.0, "prompt_tps": 400.0, "source": "bench llm"})
    unknown = FakeLLM(GOOD, delay=0.02)
    assert Planner(unknown, "fake", timeout=0.2).plan("How do readers use citations?").made_by == "rules"
    measured = FakeLLM(GOOD, delay=0.02)
    measured.model_path = model
    plan = Planner(measured, "fake", timeout=0.2).plan("How do readers use citations?")
    assert plan.made_by == "model:fake", plan.notes
