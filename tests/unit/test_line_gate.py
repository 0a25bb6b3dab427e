"""The gate every command line passes on its way to the Desk: one row per case, with the words it shows."""

from __future__ import annotations

import pytest

from paperdesk.tui.line_gate import AskFirst, Facts, Gate, Origin, decide

TYPED, DECIDED, QUEUED, COMMAND = Origin.TYPED, Origin.DECIDED, Origin.QUEUED, Origin.COMMAND
BUSY = {"busy": True, "running": "summary"}
STOPS = {**BUSY, "interrupts": True}

CASES = [
    # (why, line, facts, gate, what the command line says)
    ("an empty line does nothing", "   ", Facts(), Gate.IGNORE, ""),
    ("an empty line does nothing, even with a message's facts", "", Facts(is_message=True), Gate.IGNORE, ""),
    ("a command runs when nothing runs", "list", Facts(), Gate.RUN, "running list … (Esc cancels)"),
    ("the line is named without its spaces", "  list ", Facts(), Gate.RUN, "running list … (Esc cancels)"),
    ("free text goes to the dispatcher", "what is dropout", Facts(is_message=True), Gate.TALK, ""),
    ("free text goes to the dispatcher while work runs", "what next", Facts(is_message=True, **STOPS), Gate.TALK, ""),
    ("free text waits with the rest while the library opens", "hello", Facts(desk_open=False, is_message=True),
     Gate.WAIT, "hello will run when the library is open …"),
    ("a command waits while the library opens", "list", Facts(desk_open=False), Gate.WAIT,
     "list will run when the library is open …"),
    ("remove asks before it goes anywhere", "remove 1", Facts(asks_first=AskFirst.REMOVE), Gate.CONFIRM, ""),
    ("remove asks even while work runs", "remove 1", Facts(asks_first=AskFirst.REMOVE, **STOPS), Gate.CONFIRM, ""),
    ("a confirmed remove runs", "remove 1", Facts(asks_first=AskFirst.REMOVE, confirmed=True), Gate.RUN,
     "running remove 1 … (Esc cancels)"),
    ("a confirmed remove is armed like any line that stops work", "remove 1",
     Facts(asks_first=AskFirst.REMOVE, confirmed=True, **STOPS), Gate.ARM,
     "this stops the running summary: Enter to go on, Esc stops it, or edit the line"),
    ("a queued remove is not asked again", "remove 1", Facts(origin=QUEUED, asks_first=AskFirst.REMOVE), Gate.RUN,
     "running remove 1 … (Esc cancels)"),
    ("abandon asks when it would run", "abandon", Facts(asks_first=AskFirst.ABANDON), Gate.CONFIRM, ""),
    ("a queued abandon asks too", "abandon", Facts(origin=QUEUED, asks_first=AskFirst.ABANDON), Gate.CONFIRM, ""),
    ("a confirmed abandon runs", "abandon", Facts(origin=QUEUED, asks_first=AskFirst.ABANDON, confirmed=True),
     Gate.RUN, "running abandon … (Esc cancels)"),
    ("abandon while work runs is armed first, asked once the work stopped", "abandon",
     Facts(asks_first=AskFirst.ABANDON, **STOPS), Gate.ARM,
     "this stops the running summary: Enter to go on, Esc stops it, or edit the line"),
    ("a read-only line is answered beside running work", "status", Facts(**BUSY), Gate.BESIDE, ""),
    ("an open is shown by the reader beside running work", "open 2", Facts(reader_page=("p1", 1), **STOPS),
     Gate.READER, "open 2: in the reader; the running summary goes on"),
    ("a line that would stop the work is armed by the first Enter", "list", Facts(**STOPS), Gate.ARM,
     "this stops the running summary: Enter to go on, Esc stops it, or edit the line"),
    ("work without a name is called the command", "list", Facts(busy=True, interrupts=True), Gate.ARM,
     "this stops the running command: Enter to go on, Esc stops it, or edit the line"),
    ("the second Enter interrupts, then runs", "list", Facts(armed=True, **STOPS), Gate.INTERRUPT,
     "interrupting to run list …"),
    ("a decided message interrupts without arming, named by its command", "ask find dropout",
     Facts(origin=DECIDED, label="find dropout", **STOPS), Gate.INTERRUPT, "interrupting to run find dropout …"),
    ("a decided message that stops nothing is answered beside", "ask next page", Facts(origin=DECIDED, **BUSY),
     Gate.BESIDE, ""),
    ("a decided message runs when nothing runs", "ask find dropout", Facts(origin=DECIDED, is_message=True),
     Gate.RUN, "running ask find dropout … (Esc cancels)"),
    ("a decided open is not the reader's alone", "ask open 2",
     Facts(origin=DECIDED, reader_page=("p1", 1), label="open 2", **STOPS), Gate.INTERRUPT,
     "interrupting to run open 2 …"),
    ("a ready-made command runs when nothing runs", "plan edit", Facts(origin=COMMAND, label="plan edit"), Gate.RUN,
     "running plan edit …"),
    ("a ready-made command waits for nothing: refused while work runs", "plan edit", Facts(origin=COMMAND, **STOPS),
     Gate.REFUSE, "wait for the running command to finish (Esc cancels it)"),
    ("a ready-made command is refused before the library opens", "plan edit", Facts(origin=COMMAND, desk_open=False),
     Gate.REFUSE, "wait for the running command to finish (Esc cancels it)"),
]


@pytest.mark.parametrize(("why", "line", "facts", "gate", "says"), CASES, ids=[case[0] for case in CASES])
def test_the_gate(why: str, line: str, facts: Facts, gate: Gate, says: str) -> None:
    decision = decide(line, facts)
    assert (decision.gate, decision.say) == (gate, says), why


def test_every_decision_has_a_case() -> None:
    assert {case[3] for case in CASES} == set(Gate)


def test_asks_says_which_question() -> None:
    assert decide("remove 1", Facts(asks_first=AskFirst.REMOVE)).asks is AskFirst.REMOVE
    assert decide("abandon", Facts(asks_first=AskFirst.ABANDON)).asks is AskFirst.ABANDON


def test_waiting_arming_interrupting_and_running_say_it_in_the_busy_colour() -> None:
    assert decide("list", Facts(desk_open=False)).kind == "busy"
    assert decide("list", Facts(**STOPS)).kind == "busy"
    assert decide("list", Facts(armed=True, **STOPS)).kind == "busy"
    assert decide("list", Facts()).kind == "busy"
    assert decide("open 2", Facts(reader_page=("p1", 1), **STOPS)).kind == "info"
