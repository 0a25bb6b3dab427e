"""The agent loop's decision from the real tiny default model: parsed under the JSON grammar into a call
that runs, or a done, or refused by the checks and treated as done, always said in the trace and the report.

Tools are stand-ins that record calls (what runs is not the point here); the model and SQLite are real.
"""

from pathlib import Path

import pytest

from paperdesk.core.config import load_settings
from paperdesk.core.research import Backends, Researcher, Tracker
from paperdesk.core.research.agent_loop import LOOP_TOOLS
from paperdesk.core.research.rules import rule_plan

pytestmark = pytest.mark.slow


def test_a_real_model_decision_is_parsed_or_falls_back_cleanly(tmp_path: Path, local_backend):
    calls = []

    def search(ctx, params, inputs):
        calls.append(("library_search", params))
        return {"passages": [{"paper_id": "2302.07302v1", "title": "CiteSee", "page": 2, "chunk_id": len(calls),
                              "text": "CiteSee highlights citations the reader has already read or saved."}]}

    def answer(ctx, params, inputs):
        calls.append(("answer", params))
        return {"question": params["question"], "text": "Unclear.", "citations": [], "sources": [],
                "supported": False}

    settings = load_settings(environ={"PAPERDESK_RESEARCH_MAX_EXTRA_CALLS": "1", "PAPERDESK_OFFLINE": "1",
                                      "PAPERDESK_RESEARCH_STEP_TIMEOUT": "300"},  # a busy 2-core machine
                             path=tmp_path / "absent.toml")
    r = Researcher(None, Backends(local_backend, local_backend), Tracker(tmp_path / "runs.sqlite"),  # type: ignore
                   settings=settings, tools={"library_search": search, "answer": answer})
    result = r.run(rule_plan("How does CiteSee help readers on smartwatches?"))
    assert result.trace, "the loop made no decision"
    first = result.trace[0]
    assert first.kind in ("call", "done") and first.by in ("model", "check")
    if first.kind == "call":  # parsed: a known tool with a query, run and recorded
        assert first.tool in LOOP_TOOLS and len(first.args["query"]) >= 3 and first.status
        assert calls[1][0] == first.tool and result.trace[-1].kind in ("done", "limit")
    elif first.by == "check":  # refused by the checks: said, and the run went on
        assert "treated as done" in first.why
    for entry in result.trace:
        assert f"- {entry.line()}" in result.report
    assert calls[-1][0] == "answer"  # the plan's answer ran whatever the model chose
    print("\n".join(t.line() for t in result.trace))
