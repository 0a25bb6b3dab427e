"""The discussion loop on a real library (SQLite, tantivy, MiniLM) with FakeLLM standing in for the model.

FakeLLM is not a model: these tests are about orchestration, storage, cancellation and resume.
The real GGUF runs the same loop in test_discussion_model.py.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from conftest import PAPERS
from fake_llm import FakeLLM
from paperdesk.core.cancel import CancelToken
from paperdesk.core.discussion import Discussion, DiscussionStore, UnknownDiscussionError
from paperdesk.core.discussion.function import FUNCTIONS
from paperdesk.core.memory import MemoryGraph

pytestmark = pytest.mark.slow  # the real embedder
WORKER = Path(__file__).with_name("discuss_worker.py")


@pytest.fixture(scope="module")
def home(tmp_path_factory) -> Path:
    return tmp_path_factory.mktemp("discuss-home")


@pytest.fixture(scope="module")
def library(home, embedder):
    """One library for the module: ingesting the paper once keeps these tests short."""
    from paperdesk.core.config import load_settings
    from paperdesk.core.library.library import Library

    settings = load_settings(environ={"PAPERDESK_HOME": str(home)}, path=home / "absent.toml")
    lib = Library(settings, embedder=embedder)
    yield lib
    lib.close()


@pytest.fixture(scope="module")
def paper(library):
    return library.add_pdf(PAPERS / "2304.02623v1.pdf").paper


def _discussion(library, **kw) -> Discussion:
    return Discussion(library, FakeLLM(**kw), MemoryGraph.for_library(library))


def test_run_stores_turns_insights_summary_and_memory(library, paper):
    events = []
    discussion = _discussion(library)
    result = discussion.run(paper.id, turns=4, every=2, on_event=events.append)
    assert result.status == "finished" and [t.n for t in result.turns] == [1, 2, 3, 4]
    assert [t.insight is not None for t in result.turns] == [False, True, False, False]  # turn 4 = N: summary
    kinds = [e.kind for e in events]
    assert kinds[0] == "start" and kinds[-2:] == ["summary", "done"] and kinds.count("insight") == 1
    assert [e.turn for e in events if e.kind == "turn"] == [1, 2, 3, 4]
    assert any(e.kind == "token" and e.role == "teacher" for e in events)
    # every answer cites the paper's pages: the model's words or, when they match no passage, the paper's own
    for t in result.turns:
        assert t.citations and all(c["paper_id"] == paper.id for c in t.citations)
        assert f"[p. {t.citations[0]['page']}]" in t.answer
    data = result.to_json()
    assert set(data["turns"][0]) == {"n", "question", "answer", "citations", "insight"}
    assert [e["turn"] for e in data["summary"]] == [1, 2, 3, 4]
    for entry in data["summary"]:
        assert set(entry) == {"turn", "question", "answer", "paper_context", "literature", "function", "terms"}
        assert entry["function"] in FUNCTIONS and entry["paper_context"]["pages"]
    assert {"student_s", "teacher_s", "observer_s", "memory_s", "total_s"} <= set(data["timings"])
    assert "## Turn 4:" in discussion.markdown(result)
    stored = DiscussionStore(library.store.path)
    assert stored.get(result.id)["status"] == "finished" and len(stored.turns(result.id)) == 4
    memory = MemoryGraph.for_library(library)
    opened = memory.open_nodes([paper.id])
    assert sum(1 for r in opened.relations if r.type == "asked about") >= 4
    question = memory.open_nodes([result.turns[0].question]).entities[0]
    assert question.observations[0].paper_id == paper.id and question.observations[0].turn == 1


def test_cancel_leaves_it_resumable_and_resume_continues(library, paper):
    token = CancelToken()

    def cancel_after_two(event) -> None:
        if event.kind == "turn" and event.turn == 2:
            token.cancel()

    discussion = _discussion(library)
    cut = discussion.run(paper.id, turns=4, every=2, on_event=cancel_after_two, cancel=token)
    assert cut.status == "interrupted" and len(cut.turns) == 2
    events = []
    resumed = discussion.resume(on_event=events.append)  # the newest unfinished one
    assert resumed.id == cut.id and resumed.status == "finished"
    assert events[0].data["resumed_after"] == 2 and [e.turn for e in events if e.kind == "turn"] == [3, 4]
    assert [t["question"] for t in events[0].data["earlier"]] == [t.question for t in cut.turns]  # shown again
    assert [t.n for t in resumed.turns] == [1, 2, 3, 4]
    assert len({t.question for t in resumed.turns}) == 4  # the queue came back: no question asked twice


def test_cancel_mid_answer_stops_within_tokens(library, paper):
    token = CancelToken()
    discussion = _discussion(library, text=" ".join(["word"] * 400), delay=0.01)

    def cancel_while_the_teacher_writes(event) -> None:
        # the teacher shows only sentences that passed the support check, so none of these 400 words is
        # streamed: cancel once its generation (4 s of tokens) has begun
        if event.kind == "question":
            threading.Timer(0.3, token.cancel).start()

    result = discussion.run(paper.id, turns=3, every=2, on_event=cancel_while_the_teacher_writes, cancel=token)
    assert result.status == "interrupted" and result.turns == []
    assert DiscussionStore(library.store.path).get(result.id)["status"] == "interrupted"


def test_kill_9_mid_discussion_resumes_from_the_last_finished_turn(library, paper, home):
    env = {**os.environ, "PAPERDESK_HOME": str(home), "PYTHONUNBUFFERED": "1"}
    proc = subprocess.Popen([sys.executable, str(WORKER), paper.id, "4", "2"], stdout=subprocess.PIPE, text=True,
                            env=env)
    assert proc.stdout is not None
    deadline = time.monotonic() + 300
    line, did = "", 0
    while time.monotonic() < deadline and not line.startswith("stored 2"):
        line = proc.stdout.readline()
        assert line, "the worker ended before storing two turns"
        if line.startswith("started"):
            did = int(line.split()[1])
    proc.send_signal(signal.SIGKILL)
    proc.communicate()
    assert proc.returncode == -signal.SIGKILL
    store = DiscussionStore(library.store.path)
    row = store.get(did)
    stored = store.turns(did)
    assert row["status"] == "running" and 2 <= len(stored) < 4  # killed: nobody marked it
    result = _discussion(library).resume(did)
    assert result.status == "finished" and [t.n for t in result.turns] == [1, 2, 3, 4]
    assert [t.question for t in result.turns[: len(stored)]] == [t.question for t in stored]
    assert len(result.summary) == 4


def test_bad_arguments_are_clear_errors(library, paper):
    from paperdesk.core.errors import InvalidIdError, UnknownPaperError

    with pytest.raises(InvalidIdError, match="at least 1"):
        _discussion(library).run(paper.id, turns=0)
    with pytest.raises(UnknownPaperError):
        _discussion(library).run("2401.99999")
    with pytest.raises(UnknownDiscussionError, match="no discussion 99"):
        _discussion(library).resume(99)


def test_teacher_reads_arxiv_abstracts_when_online_and_stops_when_unreachable(library, paper, arxiv):
    from paperdesk.core.discussion.outline import build_outline
    from paperdesk.core.discussion.student import Topic
    from paperdesk.core.discussion.teacher import Teacher
    from paperdesk.core.sources.arxiv import ArxivClient

    outline = build_outline(library.store, paper.id, paper.title)
    client = ArxivClient(arxiv.api_url, delay_seconds=0, num_retries=0, timeout=5)
    teacher = Teacher(library, FakeLLM(), outline, arxiv=client)
    question = "How are civil rights lawsuits summarized at multiple granularities?"
    sources = teacher.gather(question, Topic("term", "lawsuits"))
    assert sources[0].kind == "paper"  # the paper's own passages always come first
    (abstract,) = [s for s in sources if s.kind == "arxiv"]
    assert abstract.paper_id.startswith("2206.10883") and abstract.label(paper.id).startswith("[arXiv:2206.10883")
    arxiv.fail_api(times=5, status=503)
    assert [s.kind for s in teacher.gather(question, Topic("term", "lawsuits"))].count("arxiv") == 0
    assert teacher.arxiv is None  # unreachable: not asked again during this discussion
