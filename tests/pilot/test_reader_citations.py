"""Reading: citations open the cited page with the passage marked, find counts matches and n/N step
through them, o opens the PDF viewer, find results show the abstract, and narrow terminals give one pane the screen.

Real library (fixture papers through the loopback arXiv), no model: drafts are written into the store as a model would.
"""

import stat
from pathlib import Path

import pytest
from textual.widgets import Markdown, TabbedContent

from paperdesk.core.desk.desk import Desk
from paperdesk.tui.app import PaperDeskApp
from paperdesk.tui.panes.draft import DraftPane
from paperdesk.tui.panes.reader import ReaderPane
from paperdesk.tui.panes.results import ResultsPane
from desk_helpers import cited_source, save_answer
from settings_for import NO_MODEL, settings_for
from tui_helpers import pane_key, settle, type_commands

pytestmark = pytest.mark.slow
CITESEE, LEGAL = "2302.07302v1", "2304.02623v1"


@pytest.fixture(scope="module")
def library_home(library_of):
    return library_of(LEGAL, CITESEE)


def app_on(home, api_url, **env):
    return PaperDeskApp(settings_for(home, api_url, **{**NO_MODEL, **env}), warm_up=False, cursor_blink=False)


def answer_with_citations(home, api_url, embedder):
    """A sem-search answer whose [1] and [2] cite single-page chunks of CiteSee; returns those sources."""
    desk = Desk(settings_for(home, api_url, **NO_MODEL), embedder=embedder)
    chunks = [c for c in desk.store.chunks_of(CITESEE) if c.page_start == c.page_end and c.page_start > 1]
    sources = [cited_source(n, CITESEE, "CiteSee", chunk, " ".join(chunk.text.split()[5:30]))
               for n, chunk in enumerate((chunks[0], chunks[-1]), start=1)]
    save_answer(desk, CITESEE, "how do readers track citations",
                "Readers lose track of citations [1]. CiteSee marks them [2].", sources, "pp. 2")
    desk.close()
    return sources


async def test_a_citation_opens_its_page_with_the_passage_marked(home, arxiv, embedder):
    sources = answer_with_citations(home, arxiv.api_url, embedder)
    app = app_on(home, arxiv.api_url)
    async with app.run_test(size=(160, 48)) as pilot:
        await settle(pilot)
        draft = app.main.query_one(DraftPane)
        assert draft.citations == ["1", "2"]
        assert "(cite:1)" in draft.body.source  # [1] is a link a click follows
        reader = app.main.query_one(ReaderPane)
        await pilot.press("f3", "right", "right")  # citation [2] of 2
        assert "citation [2] (2 of 2)" in str(app.main.query_one("#draft-footer").render())
        await pilot.press("enter")
        await settle(pilot, until=lambda: reader.page == sources[1]["page"] and reader.passage_found)
        assert app.main.query_one(TabbedContent).active == "tab-reader"
        assert "cited passage marked" in str(app.main.query_one("#reader-header").render())
        assert reader.passage == sources[1]["quote"]
        # a click on [1] (the Markdown widget posts LinkClicked) opens the other citation
        app.main.query_one("#draft-body", Markdown).post_message(
            Markdown.LinkClicked(app.main.query_one("#draft-body", Markdown), "cite:1"))
        await settle(pilot, until=lambda: reader.page == sources[0]["page"] and reader.passage == sources[0]["quote"])
        assert reader.passage_found


async def test_find_counts_matches_and_n_N_step_through_them(home, arxiv):
    app = app_on(home, arxiv.api_url)
    async with app.run_test(size=(160, 48)) as pilot:
        await type_commands(pilot, "list", f"open {CITESEE}")
        reader = app.main.query_one(ReaderPane)
        await pilot.press("f5")
        await pane_key(pilot, "f")  # the find box, then the words typed into it
        await pilot.press(*"citations", "enter")
        await settle(pilot, until=lambda: reader.matches)
        total = len(reader.matches)
        assert total > 10  # "citations" is all over CiteSee
        header = app.main.query_one("#reader-header")
        assert f"match 1 of {total}" in str(header.render())
        await pilot.press("n")
        await settle(pilot, until=lambda: reader.match_index == 1)
        assert f"match 2 of {total}" in str(header.render())
        await pilot.press("N", "N")  # back past the first: wraps to the last match, on a later page
        await settle(pilot, until=lambda: reader.match_index == total - 1 and reader.page == reader.matches[-1].page)
        assert f"match {total} of {total}" in str(header.render())
        await pane_key(pilot, "f")
        await pilot.press(*"no such words anywhere", "enter")
        await settle(pilot, until=lambda: "is not in" in str(app.main.query_one("#command-message").render()))
        assert reader.match_label() == ""


def _script(folder: Path, name: str, body: str) -> None:
    path = folder / name
    path.write_text("#!/bin/sh\n" + body + "\n")
    path.chmod(path.stat().st_mode | stat.S_IXUSR)


async def test_o_opens_the_pdf_in_the_system_viewer_at_the_page(home, arxiv, tmp_path, monkeypatch):
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    calls = tmp_path / "calls.txt"
    _script(bin_dir, "xdg-mime", "echo org.pwmt.zathura.desktop")  # the desktop's default PDF app is zathura
    _script(bin_dir, "zathura", f'echo "zathura $*" >> {calls}')
    monkeypatch.setenv("PATH", f"{bin_dir}:/usr/bin:/bin")
    app = app_on(home, arxiv.api_url)
    async with app.run_test(size=(160, 48)) as pilot:
        await type_commands(pilot, "list", f"open {CITESEE} 3")
        await pilot.press("f5", "o")
        await settle(pilot, until=lambda: calls.exists())
        pdf = app.desk.store.get_paper(CITESEE).pdf_path
        assert calls.read_text().split() == ["zathura", "--page=3", pdf]
        assert f"opened {CITESEE} in zathura at page 3" in str(app.main.query_one("#command-message").render())
        # the command form, from the command line
        await pilot.press("escape")  # back to the command line
        await type_commands(pilot, f"open {CITESEE} 2 --external")
        await settle(pilot, until=lambda: len(calls.read_text().splitlines()) == 2)
        assert calls.read_text().splitlines()[1].split() == ["zathura", "--page=2", pdf]
        (bin_dir / "zathura").unlink()
        (bin_dir / "xdg-mime").unlink()
        await type_commands(pilot, f"open {CITESEE} --external")
        message = str(app.main.query_one("#command-message").render())
        assert "no PDF viewer found: install xdg-utils (xdg-open)" in message


async def test_find_results_show_the_abstract_of_the_highlighted_paper(tmp_path, arxiv):
    app = app_on(tmp_path / "empty", arxiv.api_url)
    async with app.run_test(size=(120, 36)) as pilot:
        await type_commands(pilot, "find expository writing")
        box = app.main.query_one("#results-abstract")
        first, second = (item.arxiv["abstract"] for item in app.desk.session.results[:2])
        assert box.display and str(box.render()).startswith(first[:40])
        await pilot.press("f2", "down")
        await settle(pilot, until=lambda: str(box.render()).startswith(second[:40]))
        await pilot.press("escape")
        await type_commands(pilot, "list")  # an empty library: no results, so no abstract
        assert not box.display


def shown(widget) -> bool:
    """On screen (a widget inside a hidden container has no region)."""
    return widget.region.width > 0


async def test_below_100_columns_one_pane_takes_the_screen(home, arxiv):
    app = app_on(home, arxiv.api_url)
    async with app.run_test(size=(80, 24)) as pilot:
        await type_commands(pilot, "list")
        results, right = app.main.query_one(ResultsPane), app.main.query_one("#right")
        notes = app.main.query_one("NotesPane")
        assert shown(results) and results.size.width >= 76 and not shown(right) and not shown(notes)
        table = app.main.query_one("#results-table")
        assert table.ordered_columns[1].width >= 50  # titles are no longer cut at 20 characters
        assert app.check_action("switch_pane", ()) is True
        await type_commands(pilot, "open 1")  # the reader comes to the front, full width
        reader = app.main.query_one(ReaderPane)
        assert shown(reader) and not shown(results) and reader.size.width >= 76
        await pilot.press("f9")  # results -> notes -> work: from work, F9 goes to results
        await settle(pilot)
        assert shown(results) and not shown(right)
        await pilot.press("f9")
        await settle(pilot)
        assert shown(notes) and not shown(results)
        await pilot.resize_terminal(160, 48)
        await settle(pilot)
        assert shown(results) and shown(right) and shown(notes) and app.check_action("switch_pane", ()) is False
