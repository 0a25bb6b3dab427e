"""the research report streams while the run goes on, not in one burst at the end.

Real library (SQLite, tantivy, MiniLM over the CiteSee fixture paper) and the rule planner;
generation comes from FakeLLM (tests/fake_llm.py), a stand-in that streams a fixed sentence
word by word, because what is tested here is orchestration: when the pieces arrive.
"""

from __future__ import annotations


import pytest

from fake_llm import FakeLLM
from paperdesk.core.research import Backends
from paperdesk.core.research.rules import rule_plan
from paperdesk.core.commands.views import GenerationStarted, PlanUpdated, ProgressUpdated, TokenStreamed

pytestmark = pytest.mark.slow  # the real embedding model indexes the fixture paper

# two sub-questions: search, search, answer the first, answer the second (rule planner, "which X and how Y")
QUESTION = "What does CiteSee highlight, and how do readers keep track of citations?"


@pytest.fixture
def desk(citesee_desk):
    return citesee_desk()  # rules plan: the steps are known


def test_plan_has_two_answer_steps():
    assert [s.tool for s in rule_plan(QUESTION).steps] == ["library_search", "library_search", "answer", "answer"]


def test_a_section_streams_before_the_last_step_starts_and_the_stream_is_the_stored_report(desk):
    events: list = []
    desk.subscribe(events.append)
    outcome = desk.run(f"research {QUESTION}")
    assert outcome.ok, outcome.message

    def first(pred) -> int:
        return next(i for i, e in enumerate(events) if pred(e))

    last_started = first(lambda e: isinstance(e, PlanUpdated) and e.message == "step 4/4 answer: running")
    run_done = first(lambda e: isinstance(e, PlanUpdated) and e.message == "research finished")
    early = "".join(e.text for e in events[:last_started] if isinstance(e, TokenStreamed))
    # the first sub-question's grounded section is in the draft while step 4 has not started
    assert early.startswith(f"# {QUESTION}\n\n## What does CiteSee highlight?\n\n") and "[1]" in early
    assert "## How do readers keep track" not in early and "## Sources" not in early
    assert first(lambda e: isinstance(e, GenerationStarted)) < last_started < run_done

    # while a sub-answer is written, its tokens count up in the status bar (before its step is done)
    writing = [i for i, e in enumerate(events) if isinstance(e, ProgressUpdated) and "answer: writing" in e.progress.stage]
    step3_done = first(lambda e: isinstance(e, PlanUpdated) and e.message.startswith("step 3/4 answer: done"))
    assert writing and writing[0] < step3_done

    # the streamed pieces are exactly the stored (renumbered, grounded) report
    streamed = "".join(e.text for e in events if isinstance(e, TokenStreamed))
    assert streamed.rstrip() == desk.draft_view().text.rstrip()
    assert "## How this was researched" in streamed and streamed.index("## How do readers") > len(early) - 1


def test_tokens_of_a_cancelled_answer_stay_out_of_the_report(desk):
    """Esc during the second answer: what streamed is the first section only, and the resume finishes it."""
    import threading

    writer = FakeLLM(delay=0.05)
    desk.research_backends = Backends(writer, None)
    events: list = []
    desk.subscribe(events.append)

    cancelled_once = threading.Event()  # the resume runs step 4 again: it must not be cancelled too

    def cancel_in_step_4(event) -> None:
        if isinstance(event, PlanUpdated) and event.message == "step 4/4 answer: running" \
                and not cancelled_once.is_set():
            cancelled_once.set()
            threading.Timer(0.2, desk.cancel).start()

    desk.subscribe(cancel_in_step_4)
    outcome = desk.run(f"research {QUESTION}")
    assert outcome.status == "cancelled", outcome.message
    streamed = "".join(e.text for e in events if isinstance(e, TokenStreamed))
    assert "## What does CiteSee highlight?" in streamed and "## Sources" not in streamed
    writer.delay = 0.0
    events.clear()
    resumed = desk.run("research --resume")
    assert resumed.ok, resumed.message
    again = "".join(e.text for e in events if isinstance(e, TokenStreamed))
    assert again.rstrip() == desk.draft_view().text.rstrip() and "## How this was researched" in again


def test_with_the_real_model_a_sub_answer_streams_as_it_is_written(library, citesee_pdf, local_backend):
    """The default GGUF (8 tokens a sub-answer): its words arrive inside step 3, and the report's first
    piece goes out before step 4 starts; the report stream is still exactly the stored text."""
    from paperdesk.core.research import Researcher, Tracker

    library.add_pdf(citesee_pdf)
    settings = library.settings.with_overrides(research__step_tokens=8, research__step_timeout=600)
    tracker = Tracker.for_library(library)
    events: list = []
    try:
        result = Researcher(library, Backends(local_backend, None), tracker, settings=settings).run(
            rule_plan(QUESTION), on_event=events.append)
    finally:
        tracker.close()

    def at(kind, step):
        return next(i for i, e in enumerate(events) if e.kind == kind and e.step_id == step and e.iteration == -1)

    words = [i for i, e in enumerate(events) if e.kind == "answer_token"]
    assert words and at("step_start", 3) < words[0] < at("step_done", 3)
    pieces = [i for i, e in enumerate(events) if e.kind == "token"]
    report = "".join(events[i].text for i in pieces)
    assert report.rstrip() == result.report.rstrip()
    # A first answer that held up is in the report before step 4 starts; one the check had to answer again
    # (a "check" event names it) comes after step 4. The report's section order cannot tell the two apart:
    # when steps 3 and 4 both fail, the check's answers follow in plan order, step 3's first.
    rechecked = [e.message for e in events if e.kind == "check"]
    if not any("What does CiteSee highlight?" in m for m in rechecked):
        assert "## What does CiteSee highlight?" in result.report
        assert pieces[0] < at("step_start", 4)
    else:
        assert pieces[0] > at("step_done", 4)
