"""`paperdesk research`: argument errors, run listing and unknown runs, without loading a model."""

from __future__ import annotations

import json

from paperdesk.cli import main


def test_research_without_a_question_is_a_usage_error(tmp_home, capsys):
    assert main(["research"]) == 2
    assert "give a question, --resume RUN or --runs" in capsys.readouterr().err


def test_runs_on_a_new_library_and_an_unknown_run(tmp_home, capsys):
    assert main(["research", "--runs", "--json"]) == 0
    assert json.loads(capsys.readouterr().out) == {"runs": []}
    assert main(["research", "--resume", "99"]) == 1
    err = capsys.readouterr().err
    assert err.startswith("error: there is no research run 99") and err.count("\n") == 1


def test_research_mode_must_be_one_of_the_three(tmp_home, capsys):  # --mode plan|agent|reader
    assert main(["research", "what is CiteSee?", "--mode", "turbo"]) == 2
    assert "invalid choice: 'turbo'" in capsys.readouterr().err
