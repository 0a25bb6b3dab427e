"""Snapshots of the Discussion pane (mid-run and the final annotated summary) and the Memory screen.

Fixed data, no model: the discussion steps are the events a run emits, the
summary is rendered from fixed annotated entries, and the memory graph is
written through its own API. Regenerate only after looking at the diff:
pytest tests/snapshots/test_discussion_screens.py --snapshot-update.
"""


import pytest

from paperdesk.core.desk.desk import Desk
from paperdesk.core.discussion.observer import render_markdown
from paperdesk.core.memory.types import Entity, Observation, Relation
from paperdesk.core.commands.session import DraftRef, ResultItem, Session
from paperdesk.core.commands.views import DiscussionProgress
from tui_helpers import settle, snapshot_app as app_for, snapshot_settings as settings_for

pytestmark = pytest.mark.slow
SIZE = (120, 36)
PAPER = "2304.02623v1"
TITLE = "Beyond Summarization: Designing AI Support for Real-World Expository Writing Tasks"
SUMMARY = [
    {"turn": 1, "question": "What problem does the paper address, and what does it propose?",
     "answer": "Expository writing summarizes sources and adds new knowledge, and the authors propose AI support "
               "for it [p. 1].",
     "paper_context": {"sections": ["Introduction"], "pages": [1]}, "literature": [],
     "function": "new topic introduction", "terms": ["expository writing"]},
    {"turn": 2, "question": "How does the approach in \"Components of AI support\" work?",
     "answer": "It sketches support for reading, synthesis and composition rather than whole texts [p. 2].",
     "paper_context": {"sections": ["Components of AI support"], "pages": [2]}, "literature": ["2302.07302v1"],
     "function": "elaboration", "terms": ["synthesis", "composition"]},
    {"turn": 3, "question": "What limitations does the paper discuss?",
     "answer": "It is a position paper: the design is sketched, not built or evaluated [p. 3].",
     "paper_context": {"sections": ["Discussion"], "pages": [3]}, "literature": [],
     "function": "critique", "terms": ["evaluation"]},
]


@pytest.fixture(scope="module")
def library_home(library_of):
    return library_of(PAPER, "2302.07302v1", added=(1_700_000_012.0, 1_700_000_012.0))


def _selected(home, api_url, embedder, state="select-view"):
    desk = Desk(settings_for(home, api_url), embedder=embedder)
    papers = desk.store.papers_by_ids([PAPER])
    session = Session(results=[ResultItem.from_paper(papers[PAPER], "discussed")], results_kind="discuss",
                      selected=PAPER)
    desk.drafts.save_session(session.to_json(state))
    desk.close()


def test_discussion_pane_mid_run(snap_compare, home, arxiv, embedder):
    _selected(home, arxiv.api_url, embedder, "draft-discussion")
    steps = [
        DiscussionProgress("start", 7, 0, 4, data={"paper_id": PAPER, "title": TITLE, "resumed_after": 0}),
        DiscussionProgress("question", 7, 1, 4, "student", SUMMARY[0]["question"]),
        DiscussionProgress("answer", 7, 1, 4, "teacher", SUMMARY[0]["answer"]),
        DiscussionProgress("question", 7, 2, 4, "student", SUMMARY[1]["question"]),
        DiscussionProgress("answer", 7, 2, 4, "teacher", SUMMARY[1]["answer"]),
        DiscussionProgress("insight", 7, 2, 4, "observer", data={
            "student": {"text": "The section \"Discussion\" is not covered yet: ask about it next."},
            "teacher": {"text": "Cite the page for every claim."}}),
        DiscussionProgress("question", 7, 3, 4, "student", SUMMARY[2]["question"]),
        DiscussionProgress("token", 7, 3, 4, "teacher", "It is a position paper: the design"),
    ]

    async def run(pilot):
        await settle(pilot)
        for step in steps:
            pilot.app.router.event(step)
        await pilot.pause(0.4)

    assert snap_compare(app_for(home, arxiv.api_url), terminal_size=SIZE, run_before=run)


def test_discussion_final_annotated_summary(snap_compare, home, arxiv, embedder):
    desk = Desk(settings_for(home, arxiv.api_url), embedder=embedder)
    draft_id = desk.drafts.new_draft("discussion", f"discussion of {TITLE}")
    desk.drafts.add_draft_revision(draft_id, render_markdown(TITLE, PAPER, SUMMARY),
                                   [{"n": 1, "paper_id": PAPER, "page": 1, "title": TITLE, "cited": True}])
    papers = desk.store.papers_by_ids([PAPER, "2302.07302v1"])
    session = Session(results=[ResultItem.from_paper(papers[PAPER], "discussed"),
                               ResultItem.from_paper(papers["2302.07302v1"], "cited")],
                      results_kind="discuss", selected=PAPER,
                      draft=DraftRef("discussion", paper_id=PAPER, draft_id=draft_id, query=f"discussion of {TITLE}"))
    desk.drafts.save_session(session.to_json("draft-discussion"))
    desk.close()

    async def run(pilot):
        await settle(pilot)
        await pilot.pause(0.3)

    assert snap_compare(app_for(home, arxiv.api_url), terminal_size=SIZE, run_before=run)


def test_memory_screen(snap_compare, home, arxiv, embedder):
    desk = Desk(settings_for(home, arxiv.api_url), embedder=embedder)
    desk.memory.create_entities([
        Entity(PAPER, "paper", [Observation(TITLE, paper_id=PAPER)]),
        Entity("expository writing", "term", [Observation(
            "Expository writing, such as literature reviews, summarizes sources and adds new knowledge.",
            paper_id=PAPER, page=1)]),
        Entity("What problem does the paper address?", "question", [Observation(
            "Answered in discussion 1, turn 1: AI support for expository writing [p. 1].", paper_id=PAPER, page=1,
            discussion_id=1, turn=1)]),
    ])
    desk.memory.create_relations([Relation("expository writing", PAPER, "appears in"),
                                  Relation("What problem does the paper address?", PAPER, "asked about")])
    desk.close()

    async def run(pilot):
        await settle(pilot)
        await pilot.press("f10")
        await pilot.pause(0.3)
        for box in pilot.app.screen.query("Input"):
            box.cursor_blink = False
        await pilot.press(*"expository")
        await settle(pilot, until=lambda: "matching 'expository'" in str(pilot.app.screen.query_one("#memory-count").render()))
        await pilot.pause(0.3)

    assert snap_compare(app_for(home, arxiv.api_url), terminal_size=SIZE, run_before=run)
