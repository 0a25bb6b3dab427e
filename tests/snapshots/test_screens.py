"""Snapshots of the workbench's screens at a fixed size, with fixed data and no cursor blink.

States are built from stored data (papers ingested from the fixture PDFs via
the loopback arXiv, summary and answer texts written into the library as a
model would), so no model runs and every screen is the same on every run.
Regenerate only after looking at the diff: pytest tests/snapshots --snapshot-update.
"""

import pytest

from paperdesk.core.agents.answer_result import UNSURE
from paperdesk.core.desk.desk import Desk
from paperdesk.core.commands.session import DraftRef, ResultItem, Session
from paperdesk.tui.panes.draft import DraftPane
from tui_helpers import SUMMARY, settle, snapshot_app as app_for, snapshot_settings as settings_for, typed

pytestmark = pytest.mark.slow
SIZE = (120, 36)

ANSWER = ("The passages show that readers lose track of the citations they have already seen [1], and "
          "CiteSee highlights citations a reader has saved or opened before [2].")


@pytest.fixture(scope="module")
def library_home(library_of):
    """A data dir holding two papers, ingested once for the session."""
    return library_of("2304.02623v1", "2302.07302v1", added=(1_700_000_012.0, 1_700_000_012.0))


def store_session(home, api_url, embedder, state, session, prepare=None):
    desk = Desk(settings_for(home, api_url), embedder=embedder)
    if prepare is not None:
        prepare(desk)
    desk.drafts.save_session(session.to_json(state))
    desk.close()


def test_empty_start(snap_compare, tmp_path, arxiv):
    assert snap_compare(app_for(tmp_path / "empty", arxiv.api_url), terminal_size=SIZE, run_before=typed())


def test_find_results(snap_compare, tmp_path, arxiv):
    app = app_for(tmp_path / "empty", arxiv.api_url)
    assert snap_compare(app, terminal_size=SIZE, run_before=typed("find expository writing"))


def _summary_state(home, arxiv, embedder, state, revision_status=None, notes=""):
    def prepare(desk):
        if revision_status:
            desk.store.add_revision("2304.02623v1", SUMMARY, revision_status)
        if notes:
            desk.drafts.set_notes("2304.02623v1", notes)
    store_session(home, arxiv.api_url, embedder, state,
                  Session(selected="2304.02623v1", draft=DraftRef("summary", paper_id="2304.02623v1")), prepare)


def test_draft_summary_mid_stream(snap_compare, home, arxiv, embedder):
    _summary_state(home, arxiv, embedder, "draft-summary")

    async def stream(pilot):
        await settle(pilot)
        pane = pilot.app.main.query_one(DraftPane)
        pane.start_stream("summary", "Beyond Summarization: Designing AI Support for Real-World Expository Writing")
        pane.append(SUMMARY[:330])
        pilot.app.status_bar.tokens(57, 54.8)
        await pilot.pause(0.3)

    assert snap_compare(app_for(home, arxiv.api_url), terminal_size=SIZE, run_before=stream)


def test_draft_summary_finished(snap_compare, home, arxiv, embedder):
    _summary_state(home, arxiv, embedder, "draft-summary", "draft")
    assert snap_compare(app_for(home, arxiv.api_url), terminal_size=SIZE, run_before=typed())


def test_summarized_with_notes(snap_compare, home, arxiv, embedder):
    _summary_state(home, arxiv, embedder, "summarized", "final",
                   notes="Compare with CiteSee's reading support.\nFigure 1 is a good teaching example.")
    assert snap_compare(app_for(home, arxiv.api_url), terminal_size=SIZE, run_before=typed())


def test_list_view(snap_compare, home, arxiv):
    assert snap_compare(app_for(home, arxiv.api_url), terminal_size=SIZE, run_before=typed("list"))


def test_reader_on_a_page(snap_compare, home, arxiv):
    assert snap_compare(app_for(home, arxiv.api_url), terminal_size=SIZE, run_before=typed("list", "open 2 3"))


def test_sem_search_answer(snap_compare, home, arxiv, embedder):
    _answer_state(home, arxiv, embedder, ANSWER)
    assert snap_compare(app_for(home, arxiv.api_url), terminal_size=SIZE, run_before=typed())


def test_sem_search_answer_shown_as_unsure(snap_compare, home, arxiv, embedder):
    _answer_state(home, arxiv, embedder, f"{ANSWER}\n\n{UNSURE}")
    assert snap_compare(app_for(home, arxiv.api_url), terminal_size=SIZE, run_before=typed())


def _answer_state(home, arxiv, embedder, text):
    def prepare(desk):
        draft_id = desk.drafts.new_draft("answer", "how do readers keep track of citations")
        sources = [
            {"n": 1, "paper_id": "2302.07302v1", "title": "CiteSee: Augmenting Citations in Scientific Papers with "
             "Persistent and Personalized Historical Context", "page": 1, "chunk_id": 1, "quote": "", "cited": True},
            {"n": 2, "paper_id": "2302.07302v1", "title": "CiteSee: Augmenting Citations in Scientific Papers with "
             "Persistent and Personalized Historical Context", "page": 4, "chunk_id": 9, "quote": "", "cited": True},
            {"n": 3, "paper_id": "2304.02623v1", "title": "Beyond Summarization: Designing AI Support for "
             "Real-World Expository Writing Tasks", "page": 2, "chunk_id": 3, "quote": "", "cited": False},
        ]
        desk.drafts.add_draft_revision(draft_id, text, sources)
        papers = desk.store.papers_by_ids(["2302.07302v1", "2304.02623v1"])
        session.results = [ResultItem.from_paper(papers["2302.07302v1"], "pp. 1, 4"),
                           ResultItem.from_paper(papers["2304.02623v1"], "p. 2")]
        session.results_kind, session.results_query = "sem-search", "how do readers keep track of citations"
        session.draft = DraftRef("answer", draft_id=draft_id, query=session.results_query)

    session = Session()
    store_session(home, arxiv.api_url, embedder, "draft-sem-search", session, prepare)


def test_help_screen(snap_compare, home, arxiv):
    async def run(pilot):
        await typed("list")(pilot)
        await pilot.press("f1")
        await settle(pilot)

    assert snap_compare(app_for(home, arxiv.api_url), terminal_size=SIZE, run_before=run)


def test_help_screen_at_80x24(snap_compare, home, arxiv):
    """Narrow: each command on its own lines, its description and why it is unavailable wrapped under it."""
    async def run(pilot):
        await typed("list")(pilot)
        await pilot.press("f1")
        await settle(pilot)

    assert snap_compare(app_for(home, arxiv.api_url), terminal_size=(80, 24), run_before=run)


def test_palette_offers_only_what_is_enabled(snap_compare, home, arxiv):
    async def run(pilot):
        await typed("list")(pilot)
        await pilot.press("ctrl+p")
        await pilot.pause(0.5)
        for box in pilot.app.screen.query("Input"):
            box.cursor_blink = False
        await pilot.press(*"sum")
        await pilot.pause(0.5)

    assert snap_compare(app_for(home, arxiv.api_url), terminal_size=SIZE, run_before=run)


def test_an_error_shown_inline(snap_compare, tmp_path, arxiv):
    app = app_for(tmp_path / "empty", arxiv.api_url)
    assert snap_compare(app, terminal_size=SIZE, run_before=typed("improve make it shorter"))
