"""discuss / memory through the Desk: states, the discussion draft, lqs, cancel and resume.

Real library, SQLite, tantivy and MiniLM; FakeLLM stands in for the model because these tests are
about the workflow plumbing (the real GGUF runs the same loop in test_discussion_model.py and the
Pilot test in tests/pilot/test_discussion.py).
"""

from __future__ import annotations

import io
import threading

import pytest

from conftest import PAPERS
from fake_llm import FakeLLM
from paperdesk.core.discussion import DiscussionStore
from paperdesk.core.commands.views import DiscussionProgress, MemoryView, StateChanged

pytestmark = pytest.mark.slow  # the real embedder


@pytest.fixture
def listed(make_desk):
    """A desk in select-view over a library with one paper."""
    desk = make_desk()
    desk.library.add_pdf(PAPERS / "2304.02623v1.pdf")
    assert desk.run("list").ok and desk.state == "select-view"
    return desk


def test_discuss_is_refused_where_no_paper_can_be_named(make_desk):
    desk = make_desk()
    outcome = desk.run("discuss 2304.02623")
    assert outcome.status == "refused" and "list, then discuss <n>" in outcome.message
    assert desk.state == "initial"
    assert desk.run("discuss 1 --turns zero").status == "refused"  # the state refuses before the options are read


def test_bad_options_are_one_line_errors_that_change_nothing(listed):
    for line, words in [("discuss 1 --turns 0", "--turns takes a whole number from 1 to 50"),
                        ("discuss 1 --every x", "--every takes a whole number"),
                        ("discuss 1 --bogus", "unknown option '--bogus'"),
                        ("discuss 4", "no such result; the results are numbered 1-1"),
                        ("discuss", "which paper?")]:
        outcome = listed.run(line)
        assert outcome.status == "error" and words in outcome.message, (line, outcome.message)
        assert listed.state == "select-view" and listed.session.draft is None


def test_discuss_streams_turns_and_keeps_the_annotated_summary_as_a_draft(listed):
    events = []
    listed.subscribe(events.append)
    outcome = listed.run("discuss 1 --turns 3 --every 2")
    assert outcome.ok, outcome.message
    assert listed.state == "draft-discussion"
    assert StateChanged("select-view", "draft-discussion", "discuss") in events
    steps = [e for e in events if isinstance(e, DiscussionProgress)]
    assert [e.turn for e in steps if e.kind == "question"] == [1, 2, 3]
    assert [e.total for e in steps if e.kind == "question"] == [3, 3, 3]
    assert any(e.kind == "token" for e in steps) and [e.kind for e in steps].count("insight") == 1
    assert steps[-1].kind == "done"
    view = outcome.view
    assert view.kind == "discussion" and view.revision == 1 and "## Turn 3:" in view.text
    assert "- Paper context:" in view.text and "- Main terms:" in view.text
    pid = listed.session.selected
    assert view.sources and all(s["paper_id"] == pid for s in view.sources)
    # lqs = the papers the discussion cited: summary / open work on them
    assert [r.id for r in listed.session.results] == [pid]
    assert listed.run("open 1 2").ok and listed.state == "draft-discussion"
    assert listed.run("summary 1").status == "error"  # no saved summary of that paper: a clear error
    # improve: the feedback becomes one more answered turn and a new revision; undo / redo walk them
    improved = listed.run("improve What data does the study use?")
    assert improved.ok, improved.message
    assert improved.view.revision == 2 and "## Turn 4:" in improved.view.text
    assert "What data does the study use?" in improved.view.text
    assert listed.run("undo").view.revision == 1 and listed.run("redo").view.revision == 2
    saved = listed.run("save")
    assert saved.ok and "saved as report" in saved.message and listed.state == "draft-discussion"
    report = listed.drafts.reports()[0]
    assert report.kind == "discussion" and "## Turn 4:" in report.text
    # the memory graph holds what the discussion established, cited to the paper
    memory = listed.run("memory study")
    assert memory.ok and isinstance(memory.view, MemoryView) and memory.view.entities
    assert any(o.paper_id == pid for e in memory.view.entities for o in e.observations)


def test_esc_interrupts_and_discuss_resume_continues_from_the_last_finished_turn(listed):
    slow = FakeLLM(delay=0.02)
    listed._backend = slow
    finished = []

    def stop_after_first_turn(event):
        if isinstance(event, DiscussionProgress) and event.kind == "turn" and event.turn == 1:
            listed.cancel()

    listed.subscribe(stop_after_first_turn)
    listed.subscribe(lambda e: finished.append(e) if isinstance(e, DiscussionProgress) and e.kind == "turn" else None)
    outcome = listed.run("discuss 1 --turns 3 --every 3")
    assert outcome.status == "cancelled" and "discuss --resume continues it" in outcome.message
    assert listed.state == "draft-discussion"  # interrupted, and resumable
    assert outcome.view.status == "interrupted" and "## Turn 1" in outcome.view.text
    did = listed.session.draft.discussion_id
    store = DiscussionStore(listed.store.path)
    assert store.get(did)["status"] == "interrupted" and len(store.turns(did)) in (1, 2)
    done_before = len(store.turns(did))
    listed._listeners.remove(stop_after_first_turn)
    resumed = listed.run("discuss --resume")
    assert resumed.ok, resumed.message
    assert store.get(did)["status"] == "finished" and len(store.turns(did)) == 3
    starts = [e for e in finished if e.discussion_id == did]
    assert [e.turn for e in starts][-(3 - done_before):] == list(range(done_before + 1, 4))
    assert resumed.view.revision == 2 and "## Turn 3:" in resumed.view.text
    store.close()


def test_a_restarted_shell_says_the_discussion_is_unfinished(make_desk, tmp_home, arxiv, embedder):
    from paperdesk.core.handlers.discussion import resume_notice
    from paperdesk.shell import run_shell

    desk = make_desk(backend=FakeLLM(delay=0.02))
    desk.library.add_pdf(PAPERS / "2304.02623v1.pdf")
    desk.run("list")
    stop = threading.Event()
    desk.subscribe(lambda e: (stop.set(), desk.cancel()) if isinstance(e, DiscussionProgress) and e.kind == "answer"
                   else None)
    assert desk.run("discuss 1 --turns 2").status == "cancelled" and stop.is_set()
    desk.close()
    again = make_desk()
    assert again.state == "draft-discussion" and "discuss --resume" in (resume_notice(again) or "")
    out = io.StringIO()
    assert run_shell(again.settings, stdin=io.StringIO("discuss --resume\nmemory\n"), out=out, err=io.StringIO(),
                     desk=again) == 0
    text = out.getvalue()
    assert "is unfinished: discuss --resume continues it" in text
    # the answer of turn 1 was out when Esc came: turn 1 is stored, and the resumed run asks turn 2 only
    assert "(resumed after turn 1)" in text and "[turn 1/2]" not in text and "[turn 2/2] Student:" in text
    assert "## Turn 1:" in text and "## Turn 2:" in text
    assert resume_notice(again) is None


def test_kill_9_mid_discussion_and_the_next_desk_resumes_it(make_desk, tmp_home):
    import os
    import signal
    import subprocess
    import sys
    import time
    from pathlib import Path

    from paperdesk.core.handlers.discussion import unfinished_discussion

    first = make_desk()
    first.library.add_pdf(PAPERS / "2304.02623v1.pdf")
    first.close()
    worker = Path(__file__).with_name("desk_discuss_worker.py")
    env = {**os.environ, "PAPERDESK_HOME": str(tmp_home), "PYTHONUNBUFFERED": "1"}
    proc = subprocess.Popen([sys.executable, str(worker), "3"], stdout=subprocess.PIPE, text=True, env=env)
    assert proc.stdout is not None
    deadline = time.monotonic() + 300
    line = ""
    while time.monotonic() < deadline and not line.startswith("stored 1"):
        line = proc.stdout.readline().strip()
        assert line or proc.poll() is None, "the worker ended before storing a turn"
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    assert line == "stored 1"
    desk = make_desk()
    assert desk.state == "draft-discussion"  # entered as the discussion started, so a kill leaves it there
    did = unfinished_discussion(desk)
    assert did is not None
    store = DiscussionStore(desk.store.path)
    done = len(store.turns(did))
    assert 1 <= done < 3
    outcome = desk.run("discuss --resume")
    assert outcome.ok, outcome.message
    assert [t.n for t in store.turns(did)] == [1, 2, 3] and store.get(did)["status"] == "finished"
    assert outcome.view.kind == "discussion" and "## Turn 3:" in outcome.view.text
    store.close()
