"""An answer that passed every other gate is put back to the writer (answer_check.py): do the passages it
cites state it? An answer the writer doubts is withdrawn; one it affirms stands as written.

Real library (SQLite, tantivy, the real embedder) of the CiteSee fixture paper. StandInCheckingLLM is NOT a
model: it replies a scripted answer and canned yes/no margins, so which answer stands is deterministic. The
real writer's margins are read at the end, on the suite's small local model.
"""

import io
import math

import pytest

from checked_answers import StandInCheckingLLM, copied_sentence
from paperdesk.core.agents import answer as answers, answer_check
from paperdesk.core.agents.answer_result import UNSURE
from paperdesk.shell import ShellPrinter

pytestmark = pytest.mark.slow
QUESTION = "What do CiteSee's citation markers show the reader?"


@pytest.fixture(scope="module")
def library(tmp_path_factory, embedder):
    from library_helpers import library_with

    with library_with(tmp_path_factory.mktemp("checked"), embedder, "2302.07302v1.pdf") as lib:
        yield lib


@pytest.fixture(scope="module")
def copied(library):
    return copied_sentence(library, QUESTION)


def _write(library, writer, streamed, check=True):
    hits = answers.retrieve(library, QUESTION, 5, recall_k=0)
    return answers.write(library, writer, QUESTION, hits, on_token=streamed.append, second_look=0, check=check)


def test_an_answer_the_writer_affirms_stands_and_it_was_asked_of_the_cited_window(library, copied):
    draft, window = copied
    writer = StandInCheckingLLM([draft], [3.0, 2.0])
    result = _write(library, writer, [])
    assert not result.not_found and not result.fallback, result.text
    assert draft.rsplit(" [", 1)[0] in result.text
    (opening, items), = writer.asked
    assert opening == f"Question: {QUESTION}" and len(items) == 2
    assert " ".join(window.split())[:200] in items[0] and "Proposed answer" in items[0]
    assert draft.rsplit(" [", 1)[0] in items[0]  # the answer, its citation number left out


def test_an_answer_the_writer_doubts_is_withdrawn_on_screen_too(library, copied):
    draft, _ = copied
    writer = StandInCheckingLLM([draft], [-4.0, -3.0])
    streamed: list[str] = []
    result = _write(library, writer, streamed)
    shown = "".join(streamed)
    assert len(writer.asked) == 1
    assert result.not_found or result.text.strip() != draft.strip(), result.text
    assert shown.index(draft.rsplit(" [", 1)[0]) < shown.index(answers.WITHDRAWN), shown


def test_with_the_check_off_the_writer_is_not_asked(library, copied):
    draft, _ = copied
    writer = StandInCheckingLLM([draft], [-4.0, -3.0])
    result = _write(library, writer, [], check=False)
    assert writer.asked == [] and not result.not_found


def test_the_real_writer_gives_a_finite_margin_for_an_answer_and_its_window(copied, local_backend):
    draft, window = copied
    value = answer_check.margin(local_backend, QUESTION, draft.rsplit(" [", 1)[0] + " [1].", [window])
    assert value is not None and math.isfinite(value)


def test_an_answer_the_writer_affirms_only_weakly_stands_shown_as_unsure(library, copied):
    draft, _ = copied
    weak = (answer_check.MARGIN_MIN + answer_check.FIRM_MIN) / 4  # two readings summing between the thresholds
    result = _write(library, StandInCheckingLLM([draft], [weak, weak]), [])
    assert not result.not_found and draft.rsplit(" [", 1)[0] in result.text
    assert result.unsure and result.support == pytest.approx(2 * weak)
    assert result.shown_text == f"{result.text}\n\n{UNSURE}" and UNSURE not in result.text
    assert result.to_json()["support"] == {"margin": round(2 * weak, 3), "unsure": True}


def test_an_answer_the_writer_affirms_firmly_or_could_not_check_is_shown_as_it_is(library, copied):
    draft, _ = copied
    firm = _write(library, StandInCheckingLLM([draft], [answer_check.FIRM_MIN, 0.0]), [])
    assert not firm.not_found and firm.support == pytest.approx(answer_check.FIRM_MIN)
    assert not firm.unsure and firm.shown_text == firm.text
    writer = StandInCheckingLLM([draft], [-4.0, -3.0])
    unchecked = _write(library, writer, [], check=False)
    assert writer.asked == [] and not unchecked.not_found
    assert unchecked.support is None and not unchecked.unsure and unchecked.shown_text == unchecked.text


def test_a_withdrawn_answer_carries_no_margin(library, copied):
    draft, _ = copied
    writer = StandInCheckingLLM([draft], [-4.0, -3.0])
    result = _write(library, writer, [])
    assert len(writer.asked) == 1 and result.not_found
    assert result.support is None and not result.unsure


def test_a_sem_search_answer_shown_as_unsure_keeps_its_note_and_improve_does_not_read_it(citesee_desk, copied):
    draft, _ = copied
    weak = (answer_check.MARGIN_MIN + answer_check.FIRM_MIN) / 4
    writer = StandInCheckingLLM([draft, "It shows which papers the reader has seen [1]."], [weak, weak])
    desk = citesee_desk(backend=writer, PAPERDESK_MEMORY_RECALL="0")
    printer = ShellPrinter(io.StringIO(), io.StringIO())
    desk.subscribe(printer.on_event)
    outcome = desk.run(f"sem-search {QUESTION}")
    assert outcome.ok and "unsure: check the pages it cites" in outcome.message, outcome.message
    assert outcome.view.text.rstrip().endswith(UNSURE)
    printer.outcome(outcome)
    printed = printer.out.getvalue()
    assert printed.count(UNSURE) == 1 and "checked:" not in printed, printed  # streamed once, as stored
    answered = " ".join(outcome.view.text.replace(UNSURE, "").split())
    assert desk.run("improve say it in fewer words").ok
    improve_prompt = " ".join(("\n".join(m["content"] for m in writer.requests[-1].messages or []) or
                               writer.requests[-1].prompt).split())
    assert answered in improve_prompt and UNSURE not in improve_prompt  # the answer as stored, the note left out
