"""Daily use at the Desk (what every face shares): read-only answers beside running work, add, summarize of a
library paper, close, notes of the paper being read, library sync, and the shell's abandon question.

Real library, embeddings and loopback arXiv; generation from FakeLLM (tests/fake_llm.py), since these tests
are about the workflow's orchestration, not what a model writes.
"""

import threading

import pytest

from conftest import PAPERS
from desk_helpers import expect, listed_library
from paperdesk import shell, shell_outcomes
from paperdesk.core.library.library import Library
from paperdesk.core.commands.views import HelpView, NotesView, StatusView

pytestmark = pytest.mark.slow


def test_read_only_lines_are_answered_beside_a_running_command(make_desk, arxiv):
    desk = make_desk()
    desk.arxiv.num_retries = 20  # the find waits on Retry-After until it is stopped: a command that is running
    arxiv.fail_api(21, 503, retry_after=60)
    finished = []
    worker = threading.Thread(target=lambda: finished.append(desk.run("find expository writing")))
    worker.start()
    try:
        for _ in range(200):
            if desk.busy:
                break
            threading.Event().wait(0.02)
        assert desk.busy and desk.running() == "arXiv search"
        assert not desk.interrupts("status") and not desk.interrupts(":help") and not desk.interrupts("statsu")
        assert desk.interrupts("list") and desk.interrupts("sem-search citations")
        assert isinstance(desk.answer_now(":status").view, StatusView)
        assert isinstance(desk.answer_now("help find").view, HelpView)
        typo = desk.answer_now("statsu")
        assert typo.status == "error" and "did you mean status?" in typo.message
        with pytest.raises(ValueError):
            desk.answer_now("list")  # new work goes through run(), which waits for the desk
        assert desk.busy and not finished  # nothing above stopped the find
    finally:
        desk.cancel()
        worker.join(10)
    assert finished[0].status == "cancelled" and desk.state == "initial"
    assert {"status", "help find", "statsu"} <= {row[0] for row in desk.store.history()}


def test_add_offline_recognises_a_file_named_like_an_arxiv_id_and_abandon_removes_it(make_desk):
    desk = make_desk(PAPERDESK_OFFLINE="1")
    outcome = desk.run(f"add {PAPERS / '2304.02623v1.pdf'}")
    assert outcome.ok, outcome.message
    assert desk.state == "draft-summary" and desk.session.selected == "2304.02623v1"
    paper = desk.store.get_paper("2304.02623v1")
    assert paper.arxiv_id == "2304.02623" and paper.version == 1
    assert "Expository Writing" in paper.title  # offline: the title comes from the PDF itself
    expect(desk, "add 2302.07302", "refused", "finish the draft summary first")  # a download needs arXiv
    assert desk.run("abandon").ok and desk.state == "initial"
    assert desk.store.get_paper("2304.02623v1") is None
    expect(desk, "add 2302.07302", "refused", "add a local PDF file instead")
    expect(desk, "add https://example.org/paper.pdf", "error", "not an arXiv URL")
    assert desk.state == "initial"


def test_summarize_in_select_view_needs_a_library_paper_without_a_saved_summary(make_desk, library):
    desk, pid = listed_library(make_desk, library, PAPERS / "2304.02623v1.pdf")
    assert desk.run("summarize 1").ok and desk.state == "draft-summary"
    assert desk.run("abandon").ok and desk.store.get_paper(pid) is not None  # abandon keeps a library paper
    assert desk.run("list").ok and desk.run("summarize 1").ok and desk.run("save").ok
    assert desk.run("list").ok
    expect(desk, "summarize 1", "refused", "already has a saved summary")
    expect(desk, "summarize 2302.07302", "error", "add 2302.07302")
    assert desk.state == "select-view"


def test_notes_are_of_the_paper_in_the_reader_and_close_keeps_everything(make_desk, library):
    desk, first = listed_library(make_desk, library, PAPERS / "2304.02623v1.pdf")
    expect(desk, "notes", "error", "open <n>")
    assert desk.run("open 1 2").ok
    noted = desk.run("notes read section 3 again")
    assert isinstance(noted.view, NotesView) and noted.view.paper_id == first
    assert desk.drafts.notes(first) == "read section 3 again"
    assert desk.run("close").ok and desk.state == "initial" and desk.session.results == []
    assert desk.drafts.notes(first) == "read section 3 again" and desk.store.get_paper(first) is not None
    expect(desk, "notes", "refused")


def test_sync_library_sees_what_another_connection_added_and_removed(make_desk, settings, embedder):
    desk = make_desk()
    other = Library(settings, embedder=embedder)  # another writer on the same data dir, as a second process is
    try:
        assert desk.run("list").ok and desk.state == "initial"  # an empty library
        added = other.add_pdf(PAPERS / "2304.02623v1.pdf").paper.id
        assert desk.sync_library() is False  # no list on show to redraw ...
        chunks = set(desk.store.chunk_ids_of([added]))
        assert chunks and chunks <= set(desk.library.vectors.ids.tolist())  # ... but the indexes were reloaded
        assert desk.run("list").ok and [item.id for item in desk.session.results] == [added]
        other.remove(added)
        assert desk.sync_library() is True and desk.session.results == []  # the shown list follows
        assert not chunks & set(desk.library.vectors.ids.tolist())
        assert desk.sync_library() is False  # nothing new since
    finally:
        other.close()


def test_sync_library_keeps_a_filtered_lists_filter_and_order(make_desk, settings, embedder):
    desk = make_desk()
    other = Library(settings, embedder=embedder)
    try:
        first = other.add_pdf(PAPERS / "2304.02623v1.pdf").paper.id
        assert desk.run("list").ok and desk.run(f"tag {first} to-read").ok
        assert desk.run("list --tag to-read --sort title").ok and [i.id for i in desk.session.results] == [first]
        second = other.add_pdf(PAPERS / "2302.07302v1.pdf").paper.id  # untagged: the filtered list stays as it is
        assert desk.sync_library() is False and [i.id for i in desk.session.results] == [first]
        other.store.paper_meta.add_tag(second, "to-read")
        assert desk.sync_library() is True
        titles = [i.title for i in desk.session.results]
        assert {i.id for i in desk.session.results} == {first, second} and titles == sorted(titles, key=str.casefold)
    finally:
        other.close()


def test_the_interactive_shell_asks_before_abandon(make_desk, monkeypatch):
    desk = make_desk()
    assert desk.run(f"add {PAPERS / '2304.02623v1.pdf'}").ok
    monkeypatch.setattr("builtins.input", lambda prompt: "n")
    assert shell_outcomes.declined(desk, "abandon") == "abandon: nothing discarded; the draft is kept"
    asked = []
    monkeypatch.setattr("builtins.input", lambda prompt: asked.append(prompt) or "y")
    assert shell_outcomes.declined(desk, "abandon") is None
    assert "remove the paper from the library" in asked[0] and asked[0].endswith("[y/N] ")
    assert shell_outcomes.declined(desk, "status") is None and len(asked) == 1  # only abandon and remove ask


def test_the_shell_takes_a_leading_colon_and_close(make_desk):
    import io

    desk = make_desk()
    out, err = io.StringIO(), io.StringIO()
    script = io.StringIO(f"add {PAPERS / '2304.02623v1.pdf'}\nsave\n:status\nclose\n:status\n")
    assert shell.run_shell(desk.settings, stdin=script, out=out, err=err, desk=desk) == 0, err.getvalue()
    text = out.getvalue()
    assert "state: summarized" in text and "[close: summarized -> initial]" in text
    assert text.rstrip().endswith("network: online\ndialogue: 0 messages") and "state: initial" in text.split("[close:")[1]
