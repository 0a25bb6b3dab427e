"""`paperdesk discuss` / `paperdesk memory` on the CLI: argument errors, JSON shapes, the memory verbs."""

from __future__ import annotations

import json

from paperdesk.cli import main


def _run(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_discuss_argument_errors_are_one_line(tmp_home, capsys):
    code, _, err = _run(capsys, "discuss")
    assert code == 2 and "name a paper" in err and err.count("\n") == 1
    code, _, err = _run(capsys, "discuss", "2302.07302", "--turns", "0")
    assert code == 2 and "at least 1" in err
    code, _, err = _run(capsys, "--offline", "discuss", "--resume")
    assert code == 1 and "no unfinished discussion" in err


def test_memory_search_and_export(tmp_home, capsys, embedder, monkeypatch):
    from paperdesk.core.config import load_settings
    from paperdesk.core.memory import Entity, MemoryGraph, Observation, Relation

    graph = MemoryGraph(load_settings().home / "library.sqlite", embedder)
    graph.create_entities([Entity("inline citations", "term", [Observation("Citations in the text.", "p1", 2)]),
                           Entity("p1", "paper", ["CiteSee"])])
    graph.create_relations([Relation("inline citations", "p1", "appears in")])
    graph.close()
    code, out, _ = _run(capsys, "memory", "export", "--json")
    data = json.loads(out)
    assert code == 0 and [e["name"] for e in data["entities"]] == ["inline citations", "p1"]
    assert data["relations"] == [{"from": "inline citations", "to": "p1", "type": "appears in"}]
    code, out, _ = _run(capsys, "memory", "inline", "citation")
    assert code == 0 and out.startswith("  1. inline citations (term)") and "(p1, p. 2)" in out
    assert "inline citations --appears in--> p1" in out
