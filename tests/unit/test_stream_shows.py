"""A streamed answer the checks changed afterwards is shown again as it stands, in the shell and in
`paperdesk ask`; an answer the writer could not confirm is followed by a note that says so. The CLI test replaces answer() with a stand-in (not a model): it is about what is printed."""

from __future__ import annotations

import json

from paperdesk.cli import main
from paperdesk.console import stream_shows
from paperdesk.core.agents import answer as answers, answer_check
from paperdesk.core.agents.answer_result import UNSURE, AnswerResult

DRAFT = "The tool reads 40 pages a minute [1]. It was written in a weekend [2]."
CHECKED = "The tool reads 40 pages a minute [1]."


def test_the_same_words_need_nothing_more():
    assert stream_shows(CHECKED, "The tool reads  40 pages\na minute [1].")


def test_a_sentence_dropped_or_a_citation_moved_after_the_stream_must_be_shown():
    assert not stream_shows(CHECKED, DRAFT)
    assert not stream_shows("The tool reads 40 pages a minute [2].", CHECKED)
    assert not stream_shows("It was written in a weekend [2].", DRAFT)  # a tail alone is not what was read


def test_an_ending_after_a_withdrawal_note_is_what_the_reader_saw_last():
    ending = "Not found in these papers. The closest passage: ..."
    assert stream_shows(ending, f"{DRAFT}\n\n{answers.WITHDRAWN}\n\n{ending}")
    assert stream_shows(ending, f"{DRAFT}\n\n{answers.RESTATED}\n\n{ending}")
    assert not stream_shows("", DRAFT)


def _stand_in(text_streamed: str, stored: str):
    def answer(library, backend, question, on_token=None, **options):
        if on_token is not None:
            on_token(text_streamed)
        return AnswerResult(stored, [], [], False)
    return answer


def test_ask_prints_the_checked_answer_when_the_checks_changed_the_stream(tmp_home, capsys, monkeypatch):
    monkeypatch.setattr(answers, "answer", _stand_in(DRAFT, CHECKED))
    assert main(["ask", "how", "fast", "is", "the", "tool"]) == 0
    out = capsys.readouterr().out
    assert out.startswith(DRAFT) and out.rstrip().endswith(f"checked: {CHECKED}")


def test_ask_prints_nothing_twice_when_the_stream_stands(tmp_home, capsys, monkeypatch):
    monkeypatch.setattr(answers, "answer", _stand_in(CHECKED, CHECKED))
    assert main(["ask", "how", "fast", "is", "the", "tool"]) == 0
    out = capsys.readouterr().out
    assert "checked:" not in out and out.count(CHECKED) == 1


def test_ask_says_an_answer_is_unsure_after_it_and_json_carries_the_margin(tmp_home, capsys, monkeypatch):
    def unsure_answer(library, backend, question, on_token=None, **options):
        if on_token is not None:
            on_token(CHECKED)
        return AnswerResult(CHECKED, [], [], False, support=answer_check.FIRM_MIN - 1.0)

    monkeypatch.setattr(answers, "answer", unsure_answer)
    assert main(["ask", "how", "fast", "is", "the", "tool"]) == 0
    out = capsys.readouterr().out
    assert out.rstrip().endswith(UNSURE) and out.count(CHECKED) == 1
    assert main(["ask", "--json", "how", "fast", "is", "the", "tool"]) == 0
    shown = json.loads(capsys.readouterr().out)
    assert shown["text"] == CHECKED and shown["support"] == {"margin": round(answer_check.FIRM_MIN - 1.0, 3),
                                                            "unsure": True}


def test_ask_adds_no_note_to_a_firm_answer(tmp_home, capsys, monkeypatch):
    def firm_answer(library, backend, question, on_token=None, **options):
        return AnswerResult(CHECKED, [], [], False, support=answer_check.FIRM_MIN)

    monkeypatch.setattr(answers, "answer", firm_answer)
    assert main(["ask", "how", "fast", "is", "the", "tool"]) == 0
    assert UNSURE not in capsys.readouterr().out
