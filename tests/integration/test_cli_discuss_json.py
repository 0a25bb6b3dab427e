"""`paperdesk discuss ID --json`, `paperdesk memory QUERY --json` and `memory export --json`, run in-process.

Real library (SQLite, tantivy, the session's MiniLM) and the real CLI code path (argument parsing,
Ctrl-C handler, JSON printing). The model is FakeLLM, patched in as `make_backend`: it is NOT a model
(fixed words), because these tests are about the CLI's JSON shapes; the real GGUF runs the same
discussion loop in test_discussion_model.py.
"""

from __future__ import annotations

import json

import pytest

from conftest import PAPERS
from fake_llm import FakeLLM
from paperdesk.cli import main

pytestmark = pytest.mark.slow  # the real embedder

TURN_KEYS = {"n", "question", "answer", "citations", "insight"}
SUMMARY_KEYS = {"turn", "question", "answer", "paper_context", "literature", "function", "terms"}
ENTITY_KEYS = {"name", "type", "observations", "created", "updated"}
OBSERVATION_KEYS = {"text", "paper_id", "page", "discussion_id", "turn", "created"}


@pytest.fixture
def cli_library(tmp_home, embedder, monkeypatch):
    """A library with one paper; the CLI shares the session's embedder and gets the stand-in as its model."""
    import paperdesk.cli_discuss as cli_discuss
    import paperdesk.core.llm.factory as factory
    from paperdesk.core.config import load_settings
    from paperdesk.core.library.library import Library

    library = Library(load_settings(), embedder=embedder)
    paper = library.add_pdf(PAPERS / "2304.02623v1.pdf").paper
    library.close()
    stand_in = FakeLLM()
    monkeypatch.setattr(factory, "make_backend", lambda settings: stand_in)
    monkeypatch.setattr(cli_discuss, "Library", lambda settings: Library(settings, embedder=embedder))
    return paper, stand_in


def _json(capsys, *argv: str):
    code = main(list(argv))
    out, err = capsys.readouterr()
    assert code == 0, err
    return json.loads(out)


def test_discuss_json_then_memory_search_and_export_json(cli_library, capsys):
    paper, stand_in = cli_library
    data = _json(capsys, "--offline", "discuss", paper.id, "--turns", "2", "--every", "1", "--json")
    assert stand_in.requests, "the discussion generated through the CLI's backend"
    assert data["paper_id"] == paper.id and data["status"] == "finished"
    turns = data["turns"]
    assert [t["n"] for t in turns] == [1, 2] and all(set(t) == TURN_KEYS for t in turns)
    for t in turns:
        assert t["question"].endswith("?") and t["answer"]
        assert t["citations"] and all(c["paper_id"] == paper.id and c["label"] in t["answer"] for c in t["citations"])
    assert set(turns[0]["insight"]) == {"student", "teacher"} and turns[1]["insight"] is None  # K=1; turn 2 = N
    summary = data["summary"]
    assert [e["turn"] for e in summary] == [1, 2] and all(set(e) == SUMMARY_KEYS for e in summary)
    for e in summary:
        assert set(e["paper_context"]) == {"sections", "pages"} and e["paper_context"]["pages"]
        assert isinstance(e["literature"], list) and isinstance(e["terms"], list) and e["function"]
    assert {"student_s", "teacher_s", "observer_s", "memory_s", "total_s"} <= set(data["timings"])
    assert all(isinstance(v, float) for v in data["timings"].values())

    # memory QUERY --json: the discussion's question, found, with its sourced observation and relations
    found = _json(capsys, "memory", *turns[0]["question"].split(), "--json")
    assert set(found) == {"entities", "relations"} and found["entities"]
    first = found["entities"][0]
    assert set(first) == ENTITY_KEYS | {"score"} and first["name"].lower() == turns[0]["question"].lower()
    assert first["type"] == "question" and all(set(o) == OBSERVATION_KEYS for o in first["observations"])
    assert any(o["paper_id"] == paper.id and o["discussion_id"] == data["id"] and o["turn"] == 1
               for o in first["observations"])
    assert {"from": first["name"], "to": paper.id, "type": "asked about"} in found["relations"]

    # memory export --json: the whole graph, oldest first, no scores
    graph = _json(capsys, "memory", "export", "--json")
    assert set(graph) == {"entities", "relations"}
    names = [e["name"] for e in graph["entities"]]
    assert names[0] == paper.id and {t["question"] for t in turns} <= set(names)
    assert all(set(e) == ENTITY_KEYS for e in graph["entities"])
    assert all(set(r) == {"from", "to", "type"} for r in graph["relations"])
    assert sum(1 for r in graph["relations"] if r["type"] == "asked about" and r["to"] == paper.id) == 2
