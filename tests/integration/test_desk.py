"""The Desk's behaviour around the table: errors, rollback, events, cancellation, offline, resume.

Real library, embeddings and loopback arXiv; generation from FakeLLM where
only the orchestration is under test (the real model runs in test_shell_e2e).
"""


import pytest

from desk_helpers import start_summary
from fake_llm import FakeLLM
from paperdesk.core.desk.desk import Desk
from paperdesk.core.handlers import HANDLERS
from settings_for import settings_for
from paperdesk.core.commands.views import (
    GenerationStarted,
    ProgressUpdated,
    ResultsChanged,
    StateChanged,
    TokenStreamed,
)

pytestmark = pytest.mark.slow


def test_bad_numbers_and_ids_are_errors_not_transitions(make_desk):
    desk = make_desk()
    assert desk.run("find expository writing").ok
    for line, message in [("summarize 7", "no such result; the results are numbered 1-2"),
                          ("summarize 9999.99999", "arXiv has no paper"),
                          ("summarize banana", "neither a result number nor a paper id"),
                          ("find", "find needs <query>")]:
        outcome = desk.run(line)
        assert outcome.status == "error" and message in outcome.message
        assert desk.state == "select-new" and len(desk.session.results) == 2


def test_abandon_removes_the_paper_this_summarize_added(make_desk):
    desk = make_desk()
    desk.run("find expository writing")
    assert desk.run("summarize 1").ok and desk.state == "draft-summary"
    assert desk.run("notes a note that goes with the paper").ok
    outcome = desk.run("abandon")
    assert outcome.ok and "removed 2304.02623v1" in outcome.message
    assert desk.state == "initial" and desk.session.selected is None and desk.session.draft is None
    assert desk.store.count_papers() == 0
    assert desk.library.search("expository writing support", k=5) == []  # index entries are gone too
    assert desk.run("list").ok and desk.state == "initial"  # the library is empty


def test_abandon_keeps_a_paper_that_was_already_there(make_desk):
    desk = make_desk()
    paper = desk.library.add_arxiv("2304.02623v1", desk.arxiv).paper
    desk.store.add_revision(paper.id, "# saved summary", "final")
    desk.run("find expository writing")
    assert desk.session.results[0].in_library
    assert desk.run("summarize 1").ok
    # a rewrite the paper supports and that differs, so improve stores a revision
    desk.backend.text = ("AI-supported expository writing includes real-world tasks like scholars "
                         "writing literature reviews.")
    assert desk.run("improve shorter").ok
    assert desk.store.current_revision(paper.id).revision == 3
    assert desk.run("abandon").ok
    assert desk.store.get_paper(paper.id) is not None
    current = desk.store.current_revision(paper.id)
    assert (current.revision, current.text, current.status) == (1, "# saved summary", "final")


def test_events_and_status(make_desk):
    desk = make_desk()
    events = []
    desk.subscribe(events.append)
    desk.run("find expository writing")
    assert StateChanged("initial", "select-new", "find") in events
    assert any(isinstance(e, ResultsChanged) and len(e.view.items) == 2 for e in events)
    events.clear()
    desk.run("summarize 1")
    stages = list(dict.fromkeys(e.progress.stage for e in events if isinstance(e, ProgressUpdated)))
    assert stages[:4] == ["download", "parse", "embed", "index"]
    assert any(isinstance(e, GenerationStarted) and e.kind == "summary" for e in events)
    tokens = [e for e in events if isinstance(e, TokenStreamed)]
    assert tokens and tokens[-1].tokens == len(tokens) and tokens[-1].tokens_per_s > 0
    assert desk.status().lines() == [
        "state: draft-summary",
        "selected: 2304.02623v1  Beyond Summarization: Designing AI Support for ...",
        "results: 0",
        "draft: summary (revision 1)",
        "mode: agent",
        "network: online",
        "dialogue: 0 messages",
    ]


def test_cancel_mid_generation_keeps_an_interrupted_revision(make_desk):
    llm = FakeLLM(" ".join(["word"] * 400), delay=0.02)
    desk = make_desk(llm)
    worker, box = start_summary(desk, llm)
    assert desk.cancel()
    worker.join(30)
    outcome = box[0]
    assert outcome.status == "cancelled" and "interrupted" in outcome.message
    assert desk.state == "draft-summary"
    revision = desk.store.current_revision(desk.session.selected)
    assert revision.status == "interrupted" and len(revision.text.split()) < 400
    assert desk.cancel() is False  # nothing runs now


def test_cancel_during_ingest_adds_nothing(make_desk):
    desk = make_desk()
    desk.run("find expository writing")
    desk.subscribe(lambda e: desk.cancel() if isinstance(e, ProgressUpdated) and e.progress.stage == "embed" else None)
    outcome = desk.run("summarize 1")
    assert outcome.status == "cancelled" and "nothing was added" in outcome.message
    assert desk.state == "select-new" and desk.store.count_papers() == 0


def test_a_non_pdf_download_is_a_clear_error_and_adds_nothing(make_desk, arxiv):
    desk = make_desk()
    desk.run("find expository writing")
    arxiv.serve_non_pdf()
    outcome = desk.run("summarize 1")
    assert outcome.status == "error" and "not a PDF" in outcome.message
    assert desk.state == "select-new" and desk.store.count_papers() == 0
    arxiv.serve_non_pdf(False)
    assert desk.run("summarize 1").ok  # nothing was left half-done


def test_unreachable_arxiv_switches_to_offline_and_the_library_keeps_working(make_desk):
    desk = make_desk(PAPERDESK_ARXIV_API_URL="http://127.0.0.1:9/api/query")
    desk.library.add_pdf(__import__("conftest").PAPERS / "2302.07302v1.pdf")
    outcome = desk.run("find citations")
    assert outcome.status == "error" and "arXiv unreachable" in outcome.message and "offline" in outcome.message
    again = desk.run("find citations")
    assert again.status == "refused" and "find is not available offline (arXiv unreachable" in again.message
    assert desk.status().mode.startswith("offline")
    assert desk.run("sem-search how do readers keep track of citations").ok


def test_forced_offline_is_shown_and_enforced(make_desk):
    desk = make_desk(PAPERDESK_OFFLINE="true")
    assert desk.status().mode == "offline (offline = true in PAPERDESK_OFFLINE)"
    assert desk.run("find citations").status == "refused"


def test_resume_after_restart_and_when_the_paper_vanished(make_desk):
    desk = make_desk()
    desk.run("find expository writing")
    desk.run("summarize 1")
    desk.run("notes read section 3")
    desk.close()
    again = make_desk()
    assert again.state == "draft-summary" and again.notices == ["resumed in draft-summary"]
    assert again.run("notes").view.text == "read section 3"
    again.library.remove(again.session.selected)  # e.g. `paperdesk remove` from another terminal
    again.close()
    third = make_desk()
    assert third.state == "initial" and "could not resume" in third.notices[0]


def test_reports_save_and_update(make_desk):
    desk = make_desk()
    desk.library.add_pdf(__import__("conftest").PAPERS / "2302.07302v1.pdf")
    assert desk.run("sem-search how do readers keep track of citations").ok
    first = desk.run("save citation tracking")
    assert first.ok and "report #1 'citation tracking'" in first.message
    desk.run("improve shorter")
    second = desk.run("save")
    assert "report #1 'citation tracking'" in second.message  # saving again updates the same report
    report = desk.drafts.reports()[0]
    assert report.text == desk.draft_view().text and report.sources


def test_history_and_clear(make_desk):
    desk = make_desk()
    desk.run("status")
    desk.run("improve x")
    rows = desk.run("history").view.rows
    assert [(r[0], r[2].split(":")[0]) for r in rows] == [("status", "ok"), ("improve x", "refused")]
    assert desk.run("clear").ok and desk.state == "initial"
    assert [r[0] for r in desk.run("history").view.rows] == ["clear"]


def test_an_internal_error_is_reported_and_changes_nothing(make_desk, monkeypatch):
    desk = make_desk()

    def broken(desk, command):
        raise RuntimeError("boom")

    monkeypatch.setitem(HANDLERS, "list", broken)
    outcome = desk.run("list")
    assert outcome.status == "error" and "internal error in list: RuntimeError: boom" in outcome.message
    assert (desk.settings.home / "paperdesk.log").read_text().count("RuntimeError: boom") == 1
    assert desk.state == "initial" and desk.run("status").ok


def test_a_failed_command_changes_nothing_and_the_next_start_resumes_cleanly(tmp_home, arxiv, embedder):
    # the backend fails on first use (remote without a URL): after the search and after the draft was begun
    settings = settings_for(tmp_home, arxiv.api_url, PAPERDESK_LLM_BACKEND="remote")
    desk = Desk(settings, embedder=embedder)
    desk.library.add_pdf(__import__("conftest").PAPERS / "2302.07302v1.pdf")
    assert desk.run("list").ok and desk.state == "select-view"
    before = desk.status()
    events = []
    desk.subscribe(events.append)
    for line in ("research citations in scientific papers", "sem-search how do readers keep track of citations"):
        outcome = desk.run(line)
        assert outcome.status == "error" and "llm.remote_url" in outcome.message
        assert desk.status() == before and desk.session.draft is None and len(desk.session.results) == 1
    # sem-search had moved to draft-sem-search before generating: the faces are told it moved back
    assert StateChanged("draft-sem-search", "select-view", "sem-search") in events
    assert desk.store.query("SELECT COUNT(*) FROM drafts")[0][0] == 0  # no empty drafts left behind
    desk.close()
    again = Desk(settings, embedder=embedder)
    assert again.state == "select-view" and again.session.draft is None and again.notices == ["resumed in select-view"]
    assert again.status().draft == "none"
    again.close()


def test_a_notes_append_runs_after_an_edit_asked_for_before_it(make_desk):
    desk = make_desk()
    desk.run("find expository writing")
    desk.run("summarize 1")
    pid = desk.session.selected
    pending = desk.save_notes(pid, "edited in the pane")  # what a face's autosave asks for
    assert desk.run("notes appended by command").view.text == "edited in the pane\nappended by command"
    assert pending.done() and desk.drafts.notes(pid) == "edited in the pane\nappended by command"


def test_dialogue_shows_an_empty_dialogue_until_the_dispatcher_exists(make_desk):
    desk = make_desk()
    outcome = desk.run("dialogue")
    assert outcome.ok and outcome.view.turns == [] and outcome.message == "the dialogue is empty"
    from paperdesk.text_views import render

    assert render(outcome.view).startswith("(no dialogue yet")


def test_summary_shows_the_saved_summary_never_an_unsaved_draft(make_desk, library, citesee_pdf):
    paper = library.add_pdf(citesee_pdf).paper
    library.close()
    desk = make_desk()
    assert desk.run("list").ok and desk.state == "select-view"
    desk.store.add_revision(paper.id, "## Problem\nA draft nobody saved.")
    refused = desk.run("summary 1")
    assert refused.status == "error" and refused.view is None
    assert f"{paper.id} has no saved summary (its draft, revision 1, was never saved)" in refused.message
    desk.store.add_revision(paper.id, "## Problem\nThe saved one.", status="final")
    desk.store.add_revision(paper.id, "## Problem\nA later draft, not saved.")
    shown = desk.run("summary 1")
    assert shown.ok and shown.view.revision == 2 and "The saved one." in shown.view.text
    assert "(revision 2, final)" in shown.message
