"""Snapshots of the daily-use screens: the status screen whole (it was a toast the command line
cut off), the question typed `abandon` asks, and the Notes pane following the highlighted paper, at the
small (80x24) and large (160x48) sizes. Same fixed data and settings as test_screens.py; no model runs.
Regenerate only after looking at the diff: pytest tests/snapshots --snapshot-update.
"""

import pytest

from test_screens import library_home, store_session  # noqa: F401 - the fixture
from paperdesk.core.commands.session import DraftRef, Session
from tui_helpers import SUMMARY, settle, snapshot_app as app_for, typed

pytestmark = pytest.mark.slow
SMALL, LARGE = (80, 24), (160, 48)
PAPER = "2304.02623v1"


def _draft_summary(home, arxiv, embedder):
    def prepare(desk):
        desk.store.add_revision(PAPER, SUMMARY, "draft")

    store_session(home, arxiv.api_url, embedder, "draft-summary",
                  Session(selected=PAPER, draft=DraftRef("summary", paper_id=PAPER)), prepare)


@pytest.mark.parametrize("size", [SMALL, LARGE], ids=["80x24", "160x48"])
def test_status_screen_shows_every_line(snap_compare, home, arxiv, embedder, size):
    _draft_summary(home, arxiv, embedder)
    assert snap_compare(app_for(home, arxiv.api_url), terminal_size=size, run_before=typed(":status"))


def test_typed_abandon_asks_first(snap_compare, home, arxiv, embedder):
    _draft_summary(home, arxiv, embedder)

    async def run(pilot):
        await settle(pilot)
        await pilot.press(*"abandon", "enter")
        await pilot.pause(0.5)

    assert snap_compare(app_for(home, arxiv.api_url), terminal_size=LARGE, run_before=run)


def test_notes_follow_the_highlighted_paper(snap_compare, home, arxiv, embedder):
    def prepare(desk):
        desk.drafts.set_notes(PAPER, "Compare with CiteSee's reading support.")

    store_session(home, arxiv.api_url, embedder, "initial", Session(), prepare)

    async def run(pilot):
        await typed("list")(pilot)
        await pilot.press("f2", "down")
        await settle(pilot)

    assert snap_compare(app_for(home, arxiv.api_url), terminal_size=LARGE, run_before=run)
