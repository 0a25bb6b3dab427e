"""The bounded agent loop: what the run does with each choice, shown in the report's trace and the Plan pane.

The model is ScriptedFakeLLM (tests/fake_llm.py), a FAKE that replies with scripted JSON choices: these
tests are about the loop's orchestration (calls run, limits stop it, bad choices end it and say why), not
about how a model chooses. Tools are stand-ins that record their calls; the tracker is real SQLite.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from fake_llm import FakeLLM, ScriptedFakeLLM
from paperdesk.core.cancel import CancelToken
from paperdesk.core.config import load_settings
from paperdesk.core.research import Backends, Researcher, Tracker
from paperdesk.core.research.engine import Execution
from paperdesk.core.research.planner import Planner
from paperdesk.core.research.rules import rule_plan
from paperdesk.core.research.synthesizer import counts_line
from paperdesk.core.research.tracker import WHOLE

QUESTION = "How does CiteSee show citations?"


def settings_with(tmp_path: Path, **env: str):
    return load_settings(environ={f"PAPERDESK_{k.upper()}": v for k, v in env.items()}, path=tmp_path / "absent.toml")


def choice(action: str, query: str = "", paper: str = "", why: str = "") -> str:
    return json.dumps({"action": action, "query": query, "paper": paper, "why": why})


class Tools:
    """Stand-in tools: each search finds one passage of its own; the answer records the inputs it read."""

    def __init__(self) -> None:
        self.calls: list[tuple[str, dict]] = []
        self.answer_inputs: list[list[str]] = []

    def table(self):
        def search(ctx, params, inputs):
            self.calls.append(("library_search", params))
            n = len(self.calls)
            return {"passages": [{"paper_id": "p1", "title": "CiteSee", "page": n, "chunk_id": n,
                                  "text": f"passage {n} about reading"}]}

        def read(ctx, params, inputs):
            self.calls.append(("read_paper", params))
            n = len(self.calls)
            return {"paper_id": params["paper"], "passages": [{"paper_id": params["paper"], "title": "CiteSee",
                                                               "page": n, "chunk_id": n, "text": "more"}]}

        def answer(ctx, params, inputs):
            self.calls.append(("answer", params))
            self.answer_inputs.append(list(params.get("inputs") or []))
            cites = [{"n": 1, "paper_id": "p1", "title": "CiteSee", "page": 1, "chunk_id": 1, "quote": "q"}]
            return {"question": params["question"], "text": "Readers see it [1].", "citations": cites,
                    "sources": [], "supported": True}

        return {"library_search": search, "read_paper": read, "answer": answer}


def researcher(tmp_path: Path, model, tools: Tools, **env: str) -> tuple[Researcher, list]:
    events: list = []
    settings = settings_with(tmp_path, **env)
    r = Researcher(None, Backends(FakeLLM(), model), Tracker(tmp_path / "library.sqlite"),  # type: ignore[arg-type]
                   settings=settings, tools=tools.table())
    return r, events


def test_two_chosen_calls_run_feed_the_answer_and_show_in_the_trace(tmp_path):
    model = ScriptedFakeLLM([choice("library_search", "citation history panel", why="find the panel"),
                             choice("read_paper", "hover cards", "p1", why="read CiteSee itself"),
                             choice("done", why="enough")])
    tools = Tools()
    r, events = researcher(tmp_path, model, tools, research_max_extra_calls="3")
    result = r.run(rule_plan(QUESTION), on_event=events.append)
    assert [c[0] for c in tools.calls] == ["library_search", "library_search", "read_paper", "answer"]
    assert tools.calls[1][1] == {"query": "citation history panel"}
    assert tools.calls[2][1] == {"paper": "p1", "query": "hover cards"}
    assert tools.answer_inputs == [["passages_1", "extra_1", "extra_2"]]  # the calls' passages reach the answer
    assert [(t.kind, t.tool, t.by) for t in result.trace] == [("call", "library_search", "model"),
                                                              ("call", "read_paper", "model"), ("done", "", "model")]
    lines = [t.line() for t in result.trace]
    assert "agent call library_search query='citation history panel' (why: find the panel) -> COMPLETED" in lines[0]
    assert lines[2] == "after step 1: agent loop done (model: enough)"
    for line in lines:
        assert f"- {line}" in result.report  # the report's "How this was researched" block
    shown = [e.message for e in events if e.kind == "loop" and e.status == ""]
    assert shown == lines  # what the Plan pane is told, as it happens
    assert counts_line(result.plan, result.steps) == "2 steps, and 2 agent calls"
    assert "Plan made by rules; 2 steps, and 2 agent calls." in result.report
    assert [s["tool"] for s in result.steps].count("agent") == 2


@pytest.mark.parametrize("env, limit", [
    ({"research_max_extra_calls": "3"}, "research.max_extra_calls (3) reached: 3 extra calls made"),
    ({"research_max_extra_calls": "9", "research_max_steps": "4"},
     "research.max_steps (4) reached: 2 plan steps and 2 extra calls"),
    ({"research_max_extra_calls": "9", "research_max_tokens": "100"},
     "research.max_tokens (100) leaves no room for another decision"),
])
def test_a_model_that_keeps_calling_is_stopped_by_the_limit_and_the_report_names_it(tmp_path, env, limit):
    model = ScriptedFakeLLM([choice("library_search", f"citation topic {i}", why=f"more {i}") for i in range(12)])
    tools = Tools()
    r, _ = researcher(tmp_path, model, tools, **env)
    result = r.run(rule_plan(QUESTION))
    last = result.trace[-1]
    assert last.kind == "limit" and last.why.startswith(limit)
    assert f"agent loop stopped: {limit}" in result.report
    calls = [t for t in result.trace if t.kind == "call"]
    assert len(calls) == sum(1 for c in tools.calls if c[0] == "library_search") - 1
    assert len(model.requests) == len(calls)  # the limit is checked before the model is asked again


@pytest.mark.parametrize("reply, said", [
    ("I would search more", "the model's choice is not JSON"),
    (choice("extract_list", "datasets"), "the model chose an unknown tool 'extract_list'"),
    (choice("library_search", ""), "library_search needs a query of 3 characters or more"),
    (choice("read_paper", "hover", "p9"), "read_paper names a paper this run has not found ('p9')"),
    (choice("library_search", "CiteSee citations"), "repeats step 1"),
])
def test_a_choice_that_cannot_run_is_treated_as_done_and_said(tmp_path, reply, said):
    tools = Tools()
    r, _ = researcher(tmp_path, ScriptedFakeLLM([reply]), tools)
    result = r.run(rule_plan(QUESTION))
    assert [c[0] for c in tools.calls] == ["library_search", "answer"]
    (entry,) = result.trace
    assert entry.kind == "done" and entry.by == "check" and said in entry.why and "treated as done" in entry.why
    assert said in result.report


def test_a_repeated_extra_call_ends_the_loop(tmp_path):
    again = choice("library_search", "citation panel")
    tools = Tools()
    r, _ = researcher(tmp_path, ScriptedFakeLLM([again, again]), tools)
    result = r.run(rule_plan(QUESTION))
    assert [t.kind for t in result.trace] == ["call", "done"]
    assert "repeats the extra call after step 1" in result.trace[1].why


def test_the_rule_declines_when_the_passages_already_cover_the_question(tmp_path):
    model = ScriptedFakeLLM([choice("library_search", "anything else")])
    tools = Tools()
    r, _ = researcher(tmp_path, model, tools)
    result = r.run(rule_plan("What passage is about reading?"))  # every content word is in the stand-in passage
    assert model.requests == [] and [t.by for t in result.trace] == ["rule"]
    assert "hold every content word of the question" in result.report


def test_offline_arxiv_choice_and_zero_cap(tmp_path):
    tools = Tools()
    r, _ = researcher(tmp_path, ScriptedFakeLLM([choice("arxiv_search", "citation tools")]), tools, offline="1")
    result = r.run(rule_plan(QUESTION))
    assert "arxiv_search needs the network and paperdesk is offline" in result.trace[0].why
    off = ScriptedFakeLLM([choice("library_search", "citation panel")])
    r, _ = researcher(tmp_path, off, Tools(), research_max_extra_calls="0")
    assert r.run(rule_plan(QUESTION)).trace == [] and off.requests == []  # 0: the loop is off


def test_a_resumed_run_keeps_its_extra_calls(tmp_path):
    model = ScriptedFakeLLM([choice("library_search", "citation panel", why="w"), choice("done", why="ok")])
    tools = Tools()
    r, _ = researcher(tmp_path, model, tools)
    plan = rule_plan(QUESTION)
    run_id = r.tracker.new_run(plan, "")
    executor = r._executor_for(None, CancelToken())
    out = Execution()
    loop = r._loop(run_id, plan, executor, out, executor.cancel)
    r.tracker.ensure_task(run_id, 1, WHOLE, None, plan.steps[0].output_key)
    executor._run_task(run_id, plan.steps[0], WHOLE, plan.steps[0].parameters, out)
    loop.after_step(run_id, plan.steps[0], out)  # step 1 and the loop's call ran; then the process was killed
    again = Researcher(None, Backends(FakeLLM(), ScriptedFakeLLM([choice("done", why="resumed")])), r.tracker,
                       settings=r.settings, tools=tools.table())
    result = again.resume(run_id)
    assert result.trace[0].tool == "library_search" and result.trace[0].status == "COMPLETED"
    assert tools.answer_inputs[-1] == ["passages_1", "extra_1"]
    assert [c[0] for c in tools.calls] == ["library_search", "library_search", "answer"]  # nothing ran twice


# -- a cap that drops sub-questions says so -------------------------------------------------------


def test_a_step_cap_that_drops_sub_questions_lists_them_in_the_report(tmp_path):
    question = "Which datasets does S2ORC use, and how is the corpus built?"
    plan = Planner(None, max_steps=2).plan(question)
    assert [s.tool for s in plan.steps] == ["library_search", "answer"]
    assert [d["question"] for d in plan.dropped] == ["List the dataset names", "How is the corpus built?"]
    tools = Tools()
    r, _ = researcher(tmp_path, None, tools, research_max_steps="2")
    result = r.run(plan)
    assert ("## Left out of the plan\n\n2 parts of the question were dropped before the run "
            "(research.max_steps is 2 and the full plan has 5 steps):\n- List the dataset names\n"
            "- How is the corpus built?\n") in result.report
    line = counts_line(result.plan, result.steps)
    assert line == "2 steps, and 2 parts of the question dropped (research.max_steps)"
    assert f"; {line}." in result.report
    assert result.to_json()["dropped"] == plan.dropped
    assert any(n.startswith("dropped 2 (research.max_steps is 2") for n in plan.notes)  # the Plan pane's note


def test_a_plan_that_fits_drops_nothing_and_says_nothing(tmp_path):
    plan = Planner(None, max_steps=8).plan("Which datasets does S2ORC use, and how is the corpus built?")
    assert plan.dropped == [] and "dropped" not in plan.to_json()
