"""Snapshots of the reading layout, at 80x24 (one pane at a time) and 160x48.

Fixed data (two fixture papers through the loopback arXiv, an answer written into the store), no model,
no cursor blink. Regenerate only after looking at the diff: pytest tests/snapshots --snapshot-update.
"""


import pytest

from paperdesk.core.desk.desk import Desk
from paperdesk.tui.panes.reader import ReaderPane
from desk_helpers import cited_source, save_answer
from tui_helpers import pane_key, settle, type_commands, typed, snapshot_app as app_for, snapshot_settings as settings_for

pytestmark = pytest.mark.slow
NARROW, WIDE = (80, 24), (160, 48)
CITESEE = "2302.07302v1"


@pytest.fixture(scope="module")
def library_home(library_of):
    return library_of("2304.02623v1", CITESEE, added=(1_700_000_000.0, 1_700_000_001.0))


def _answer(home, api_url, embedder):
    desk = Desk(settings_for(home, api_url), embedder=embedder)
    chunk = next(c for c in desk.store.chunks_of(CITESEE) if c.page_start == c.page_end == 4)
    sources = [cited_source(1, CITESEE, "CiteSee", chunk, " ".join(chunk.text.split()[:24]))]
    save_answer(desk, CITESEE, "how does CiteSee mark citations",
                "CiteSee marks citations the reader has already seen [1].", sources, "p. 4")
    desk.close()


def test_narrow_list(snap_compare, home, arxiv):
    assert snap_compare(app_for(home, arxiv.api_url), terminal_size=NARROW, run_before=typed("list"))


def test_narrow_reader(snap_compare, home, arxiv):
    assert snap_compare(app_for(home, arxiv.api_url), terminal_size=NARROW, run_before=typed("list", "open 2 4"))


def test_narrow_find_results_with_abstract(snap_compare, tmp_path, arxiv):
    app = app_for(tmp_path / "empty", arxiv.api_url)
    assert snap_compare(app, terminal_size=NARROW, run_before=typed("find expository writing"))


def test_wide_citation_opened_in_the_reader(snap_compare, home, arxiv, embedder):
    _answer(home, arxiv.api_url, embedder)

    async def run(pilot):
        await settle(pilot)
        await pilot.press("f3", "right", "enter")
        reader = pilot.app.main.query_one(ReaderPane)
        await settle(pilot, until=lambda: reader.page == 4 and reader.passage_found and reader.mark_in_view)

    assert snap_compare(app_for(home, arxiv.api_url), terminal_size=WIDE, run_before=run)


def test_wide_reader_find_match_count(snap_compare, home, arxiv):
    async def run(pilot):
        await type_commands(pilot, "list", "open 2")
        reader = pilot.app.main.query_one(ReaderPane)
        await pilot.press("f5")
        await pane_key(pilot, "f")
        await pilot.press(*"reader", "enter")
        await settle(pilot, until=lambda: reader.matches)
        await pilot.press("n")
        await settle(pilot, until=lambda: reader.match_index == 1)

    assert snap_compare(app_for(home, arxiv.api_url), terminal_size=WIDE, run_before=run)
