"""The dispatcher with the real MiniLM embedder on the labelled sets, and `paperdesk route` on a saved session.

Accuracy on labelled data is the router's claim (>= 90% overall, no action
below 80%); a decision counts only when its action, route and command all match.
"""

from __future__ import annotations

import json

import pytest

from paperdesk.cli import main
from paperdesk.core.dispatch import Dispatcher, from_registry
from paperdesk.core.dispatch.evaluate import DEV_FILE, evaluate, load_dev
from paperdesk.core.dispatch.exemplars import load_exemplars

pytestmark = pytest.mark.slow
HOLDOUT = DEV_FILE.with_name("route_holdout.jsonl")
FRESH = DEV_FILE.with_name("route_holdout_fresh.jsonl")  # messages written after the audit of the rules


@pytest.fixture(scope="module")
def dispatcher(embedder) -> Dispatcher:
    d = Dispatcher(embedder.phrases(), from_registry())
    d.warm()
    return d


def test_dev_set_is_not_the_exemplar_set():
    exemplars = {text.lower().strip() for text, _ in load_exemplars()}
    cases = load_dev(DEV_FILE) + load_dev(HOLDOUT) + load_dev(FRESH)
    assert len(load_dev(DEV_FILE)) >= 80
    assert not [c.message for c in cases if c.message.lower().strip() in exemplars]
    covered = {c.action for c in cases} | {c.route for c in cases if c.route}
    assert covered >= {"navigate", "delegate", "answer", "clarify", "citation", "direct-paper", "simple", "complex"}


@pytest.mark.parametrize("path", [DEV_FILE, HOLDOUT, FRESH], ids=["dev", "holdout", "fresh"])
def test_accuracy_goals(dispatcher, path):
    report = evaluate(dispatcher, load_dev(path))
    misses = [(m.case.message, m.decision.action, m.decision.command) for m in report.mistakes()]
    assert report.accuracy() >= 0.90, misses
    for action, figures in report.per_action().items():
        assert figures["accuracy"] >= 0.80, (action, misses)


def _save_session(home, session: dict) -> None:
    from paperdesk.core.db.desk_store import DeskStore
    from paperdesk.core.db.store import Store

    store = Store(home / "library.sqlite")
    try:
        DeskStore(store).save_session(session, ("find table extraction", "select-new", "ok"))
    finally:
        store.close()


def _found_session(dialogue=None) -> dict:
    results = [{"id": f"2301.0000{i}v1", "title": f"Table extraction paper {i}", "authors": [], "year": 2023,
                "in_library": False, "detail": "", "arxiv": None} for i in range(1, 4)]
    data = {"state": "select-new", "results": results, "results_kind": "find", "results_query": "table extraction",
            "selected": None, "draft": None, "reader": None}
    if dialogue is not None:
        data["dialogue"] = dialogue
    return data


def test_route_uses_the_saved_session(tmp_home, capsys, embedder):
    _save_session(tmp_home, _found_session())
    assert main(["route", "--json", "summarize", "the", "second", "one"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert (out["action"], out["command"], out["route"]) == ("delegate", "summarize 2", None)
    assert {"action", "command", "route", "confidence", "reason"} <= set(out)
    assert main(["route", "summarize the ninth"]) == 0
    text = capsys.readouterr().out
    assert text.startswith("? ") and "1-3" in text


def test_route_batch_one_json_per_line(tmp_home, tmp_path, capsys, embedder):
    _save_session(tmp_home, _found_session())
    batch = tmp_path / "messages.txt"
    batch.write_text("look for new papers on chart parsing\n\nwhat is table structure recognition?\nthat one\n")
    assert main(["route", "--batch", str(batch), "--json"]) == 0
    lines = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert [(x["action"], x["command"]) for x in lines] == [
        ("delegate", "find chart parsing"),
        ("answer", "sem-search what is table structure recognition"),
        ("clarify", None),
    ]


def test_route_treats_a_reply_to_the_pending_question_as_solicited(tmp_home, capsys, embedder):
    dialogue = [{"role": "user", "kind": "message", "text": "summarize that one"},
                {"role": "desk", "kind": "question", "text": "Which paper should I summarize: 1-3?"}]
    _save_session(tmp_home, _found_session(dialogue))
    assert main(["route", "--json", "the last one"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["command"] == "summarize 3" and "reply to" in out["reason"]


def test_route_usage_errors(tmp_home, capsys):
    assert main(["route"]) == 2
    assert main(["route", "--batch", "/nonexistent/file.txt"]) == 2
    assert "no such file" in capsys.readouterr().err


def test_real_model_pick_is_one_of_the_candidates_or_nothing(local_backend, embedder):
    """The grammar keeps Gemma 270M inside the candidate intents; whatever it picks, routing never fails."""
    from paperdesk.core.dispatch import DispatchContext
    from paperdesk.core.dispatch.model_choice import choose_intent

    candidates = ["improve", "notes", "ask-simple"]
    choice = choose_intent(local_backend, "the figure part", candidates, "draft-summary")
    assert choice is None or choice in candidates
    d = Dispatcher(embedder.phrases(), from_registry(), backend=local_backend)
    decision = d.decide("erm the figure part", DispatchContext(state="draft-summary", draft_kind="summary"))
    assert decision.action in ("delegate", "answer", "clarify", "navigate")
    assert decision.stage in ("model", "exemplar", "rule", "fallback")
