"""The agent loop asks the writer model when the structure model's reply is invalid twice, and says so.

Both models are ScriptedFakeLLM (tests/fake_llm.py), FAKES that reply with scripted text: these tests are
about who is asked and what the trace records, not about how a model chooses. SlowChoiceStandIn is a
stand-in backend too (it sleeps until cancelled). Tools are stand-ins; the tracker is real SQLite.
"""

from __future__ import annotations

import json
import time
from pathlib import Path

from fake_llm import FakeLLM, ScriptedFakeLLM
from paperdesk.core.config import load_settings
from paperdesk.core.research import Backends, Researcher, Tracker
from paperdesk.core.research.agent_loop import BY_WRITER
from paperdesk.core.research.rules import rule_plan

QUESTION = "How does CiteSee show citations?"


def choice(action: str, query: str = "", paper: str = "", why: str = "") -> str:
    return json.dumps({"action": action, "query": query, "paper": paper, "why": why})


def tools_table(calls: list) -> dict:
    def search(ctx, params, inputs):
        calls.append(("library_search", params))
        n = len(calls)
        return {"passages": [{"paper_id": "p1", "title": "CiteSee", "page": n, "chunk_id": n, "text": f"part {n}"}]}

    def answer(ctx, params, inputs):
        calls.append(("answer", params))
        cites = [{"n": 1, "paper_id": "p1", "title": "CiteSee", "page": 1, "chunk_id": 1, "quote": "q"}]
        return {"question": params["question"], "text": "Readers see it [1].", "citations": cites, "sources": [],
                "supported": True}

    return {"library_search": search, "answer": answer}


def run(tmp_path: Path, writer, structure, **env: str):
    settings = load_settings(environ={f"PAPERDESK_{k.upper()}": v for k, v in env.items()},
                             path=tmp_path / "absent.toml")
    calls: list = []
    tracker = Tracker(tmp_path / "runs.sqlite")
    r = Researcher(None, Backends(writer, structure, "fake-structure"), tracker,  # type: ignore[arg-type]
                   settings=settings, tools=tools_table(calls))
    return r.run(rule_plan(QUESTION)), calls


def test_the_writer_decides_when_the_structure_models_reply_is_invalid_twice(tmp_path):
    structure = ScriptedFakeLLM(["I would search more"])  # never a JSON choice
    writer = ScriptedFakeLLM([choice("library_search", "citation history panel", why="find the panel"),
                              choice("done", why="enough")])
    result, calls = run(tmp_path, writer, structure, research_max_extra_calls="3")
    assert len(structure.requests) == 4 and len(writer.requests) == 2  # two tries each decision, then the writer
    assert structure.requests[0].seed != structure.requests[1].seed
    assert writer.requests[0].json_schema == structure.requests[0].json_schema  # the same grammar
    assert writer.requests[0].prompt == structure.requests[0].prompt  # and the same prompt
    assert [c[0] for c in calls] == ["library_search", "library_search", "answer"]  # the writer's call ran
    assert [(t.kind, t.by, t.model) for t in result.trace] == [("call", "model", "writer"),
                                                                ("done", "model", "writer")]
    assert all(BY_WRITER in t.line() and f"- {t.line()}" in result.report for t in result.trace)
    assert result.to_json()["trace"][0]["model"] == "writer"


def test_a_second_try_of_the_structure_model_that_is_valid_decides_without_the_writer(tmp_path):
    structure = ScriptedFakeLLM(["not json", choice("done", why="enough")])
    writer = ScriptedFakeLLM([choice("library_search", "citation panel")])
    result, _ = run(tmp_path, writer, structure)
    assert len(structure.requests) == 2 and writer.requests == []
    (entry,) = result.trace
    assert (entry.kind, entry.by, entry.model) == ("done", "model", "structure")
    assert entry.line() == "after step 1: agent loop done (model: enough)"


def test_when_the_writers_reply_is_invalid_too_the_loop_is_done_and_says_both(tmp_path):
    result, calls = run(tmp_path, FakeLLM("no choice here"), ScriptedFakeLLM(["[1, 2]"]))
    (entry,) = result.trace
    assert entry.kind == "done" and entry.by == "check" and "treated as done" in entry.why
    assert "the structure model's reply was invalid twice (the model's choice is not a JSON object)" in entry.why
    assert "and so was the writer model's (the model's choice is not JSON ('no choice here'))" in entry.why
    assert [c[0] for c in calls] == ["library_search", "answer"]  # the plan ran all the same


class SlowChoiceStandIn(FakeLLM):
    """A stand-in backend (not a model) that never answers: it waits until its call is cancelled."""

    def stream(self, request, cancel=None):
        self.requests.append(request)
        while not (cancel is not None and cancel.cancelled):
            time.sleep(0.01)
            yield "", None
        yield "", "cancelled"


def test_a_decision_past_its_limit_names_the_limit(tmp_path):
    slow = SlowChoiceStandIn()
    result, calls = run(tmp_path, FakeLLM(), slow, research_step_timeout="0.2")
    (entry,) = result.trace
    assert entry.kind == "done" and entry.by == "check" and len(slow.requests) == 1
    assert "no choice: stopped by the decision's limit of 0.2 s (research.step_timeout" in entry.why
    assert [c[0] for c in calls] == ["library_search", "answer"]
