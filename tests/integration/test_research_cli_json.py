"""`paperdesk research QUESTION --json` end to end, in-process through the CLI's main, and `--resume` with no number.

A real library (the CiteSee fixture PDF, the session's embedding model) and the real default GGUF as the writer
(the session's loaded model, 8-token sub-answers). The planner role is left empty so the rules plan (the planner
model has its own tests): this is about the CLI's output and arguments, not plan quality.
"""

from __future__ import annotations

import functools
import json

import pytest

from paperdesk.cli import main
from paperdesk.core.research.plan import COMPLETED, STATUSES
from paperdesk.core.research.tracker import Tracker

QUESTION = "How does CiteSee help readers track citations?"
STEP_KEYS = {"id", "tool", "status", "seconds", "error"}
CITATION_KEYS = {"n", "paper_id", "page", "chunk_id", "quote"}

pytestmark = pytest.mark.slow


@pytest.fixture
def cli(library, citesee_pdf, embedder, local_backend, monkeypatch):
    """main() over a library holding the CiteSee PDF; the CLI reuses the session's embedder and writer model."""
    import paperdesk.core.library.library as library_module
    import paperdesk.core.research as research

    paper = library.add_pdf(citesee_pdf).paper
    monkeypatch.setenv("PAPERDESK_RESEARCH_STEP_TOKENS", "8")
    monkeypatch.setenv("PAPERDESK_RESEARCH_MAX_TOKENS", "16")
    monkeypatch.setenv("PAPERDESK_ANSWER_K", "2")  # short prompts: the test is about the output's shape
    monkeypatch.setenv("PAPERDESK_OFFLINE", "1")
    monkeypatch.setattr(library_module, "Library", functools.partial(library_module.Library, embedder=embedder))
    monkeypatch.setattr(research, "load_backends", lambda settings, writer=None: research.Backends(local_backend))
    return paper


def run_json(capsys, *argv: str) -> tuple[int, dict, str]:
    code = main(["research", *argv])
    out, err = capsys.readouterr()
    return code, (json.loads(out) if code == 0 else {}), err


def test_research_json_has_the_documented_keys_and_resume_takes_the_newest_unfinished_run(cli, library, capsys):
    code, data, err = run_json(capsys, QUESTION, "--json")
    assert code == 0, err
    assert {"plan", "steps", "report", "citations", "timings"} <= set(data)
    assert data["plan"]["query"] == QUESTION and [s["tool"] for s in data["plan"]["steps"]] == ["library_search",
                                                                                                "answer"]
    assert data["steps"] and all(STEP_KEYS <= set(s) and s["status"] in STATUSES for s in data["steps"])
    assert [(s["id"], s["tool"], s["status"]) for s in data["steps"][:2]] == [
        (1, "library_search", COMPLETED), (2, "answer", COMPLETED)]
    assert all(isinstance(s["seconds"], float) and s["error"] is None for s in data["steps"][:2])
    assert data["citations"] and all(set(c) == CITATION_KEYS for c in data["citations"])
    assert {c["paper_id"] for c in data["citations"]} == {cli.id} and all(c["quote"] for c in data["citations"])
    assert data["report"].startswith("#") and "## How this was researched" in data["report"]
    assert {"steps_s", "synthesis_s", "total_s", "plan_s"} <= set(data["timings"])
    assert "actions" in data  # --mode defaults to agent (workflow.md: mode ... default agent)
    assert data["actions"]["open"]["paper_id"] == cli.id

    code, _, err = run_json(capsys, "--resume")  # the run finished: nothing to resume, and it says so
    assert code == 1 and err == ("error: there is no unfinished research run to resume; `paperdesk research --runs` "
                                 "lists the runs, `paperdesk research QUESTION` starts one\n")

    tracker = Tracker.for_library(library)
    try:
        tracker.set_run_status(data["run_id"], "CANCELLED")  # what a cancel during the synthesis leaves
    finally:
        tracker.close()
    code, resumed, err = run_json(capsys, "--resume", "--json", "--mode", "reader")
    assert code == 0, err
    assert resumed["run_id"] == data["run_id"] and "actions" not in resumed
    assert [s["status"] for s in resumed["steps"][:2]] == [COMPLETED, COMPLETED]
    assert [(s["id"], s["seconds"]) for s in resumed["steps"]] == [(s["id"], s["seconds"]) for s in data["steps"]]


def test_resume_keeps_the_mode_the_run_was_started_in(cli, library, capsys):
    code, data, err = run_json(capsys, QUESTION, "--json", "--mode", "reader")
    assert code == 0, err
    assert "actions" not in data  # reader: the report with its citations only
    tracker = Tracker.for_library(library)
    try:
        assert tracker.run(data["run_id"]).mode == "reader"  # stored with the run
        tracker.set_run_status(data["run_id"], "CANCELLED")  # what a cancel during the synthesis leaves
    finally:
        tracker.close()
    code, resumed, err = run_json(capsys, "--resume", "--json")  # no --mode: the run's own, not the default agent
    assert code == 0, err
    assert resumed["run_id"] == data["run_id"] and "actions" not in resumed
