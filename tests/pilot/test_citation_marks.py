"""A citation opens the Reader scrolled to the cited passage, marked: a sem-search source far down its page is
on screen, and a summary's [p. N] marks the sentence of page N the citing summary sentence comes from.

Real library (fixture papers through the loopback arXiv), no model: drafts are written into the store as a model would.
"""


import pytest
from textual.widgets import TabbedContent

from paperdesk.core.desk.desk import Desk
from paperdesk.core.text.passages import locate_passage
from paperdesk.core.commands.session import DraftRef, ResultItem, Session
from paperdesk.tui.app import PaperDeskApp
from paperdesk.tui.panes.reader import ReaderPane
from settings_for import NO_MODEL, settings_for
from tui_helpers import screen_text, settle

pytestmark = pytest.mark.slow
CITESEE = "2302.07302v1"


@pytest.fixture(scope="module")
def library_home(tmp_path_factory, arxiv_server, embedder):
    home = tmp_path_factory.mktemp("marks") / "library"
    desk = Desk(settings_for(home, arxiv_server.api_url, **NO_MODEL), embedder=embedder)
    desk.library.add_arxiv(CITESEE, desk.arxiv)
    desk.close()
    return home


def desk_on(home, api_url, embedder):
    return Desk(settings_for(home, api_url, **NO_MODEL), embedder=embedder)


def app_on(home, api_url):
    return PaperDeskApp(settings_for(home, api_url, **NO_MODEL), warm_up=False, cursor_blink=False)


def visible_reader_text(app) -> str:
    """The words the Reader shows on screen now (its scroll region cut out of the screen)."""
    region = app.main.query_one("#reader-scroll").content_region
    lines = screen_text(app).splitlines()[region.y: region.y + region.height]
    return " ".join(" ".join(line[region.x: region.x + region.width] for line in lines).split())


def deepest_single_page_chunk(desk):
    """The chunk that starts furthest down its page (its page's text wraps to many screen rows above it)."""
    best = None
    for chunk in desk.store.chunks_of(CITESEE):
        if chunk.page_start != chunk.page_end:
            continue
        page = desk.store.page_text(CITESEE, chunk.page_start) or ""
        span = locate_passage(page, " ".join(chunk.text.split()[5:30]))
        if span is not None and (best is None or span[0] > best[0]):
            best = (span[0], chunk)
    return best[1]


async def test_a_sem_search_citation_far_down_its_page_is_scrolled_into_view(home, arxiv, embedder):
    desk = desk_on(home, arxiv.api_url, embedder)
    chunk = deepest_single_page_chunk(desk)
    quote = " ".join(chunk.text.split()[5:30])
    source = {"n": 1, "paper_id": CITESEE, "title": "CiteSee", "page": chunk.page_start, "chunk_id": chunk.id,
              "quote": quote, "cited": True}
    draft_id = desk.drafts.new_draft("answer", "how do readers track citations")
    desk.drafts.add_draft_revision(draft_id, "CiteSee marks citations a reader has seen [1].", [source])
    session = Session(results=[ResultItem.from_paper(desk.store.get_paper(CITESEE), f"p. {chunk.page_start}")],
                      results_kind="sem-search", results_query="how do readers track citations",
                      draft=DraftRef("answer", draft_id=draft_id, query="how do readers track citations"))
    desk.drafts.save_session(session.to_json("draft-sem-search"))
    desk.close()
    app = app_on(home, arxiv.api_url)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        await pilot.press("f3", "right", "enter")
        reader = app.main.query_one(ReaderPane)
        scroll = app.main.query_one("#reader-scroll")
        # it had to scroll to get there (once the page is laid out: under load, a second or more)
        await settle(pilot, until=lambda: reader.page == chunk.page_start and reader.passage_found
                     and scroll.scroll_y > 0, timeout=30)
        assert app.main.query_one(TabbedContent).active == "tab-reader"
        shown = visible_reader_text(app)
        assert " ".join(quote.split()[:6]) in shown  # the marked passage's start is on screen


async def test_a_summary_page_citation_marks_the_sentence_it_comes_from(home, arxiv, embedder):
    desk = desk_on(home, arxiv.api_url, embedder)
    page_no = 3
    page = " ".join((desk.store.page_text(CITESEE, page_no) or "").split())
    from paperdesk.core.agents.quality import split_sentences

    sentences = [s for s in split_sentences(page) if len(s.split()) >= 12]
    source = sentences[len(sentences) // 2]  # a sentence from the middle of page 3
    words = source.rstrip(".").split()
    summary = ("# CiteSee\n\n## Problem\nReaders lose track of the papers they have already seen [p. 1].\n\n"
               f"## Method\nThe paper says that {' '.join(words[:-2])} [p. {page_no}].\n")
    desk.store.add_revision(CITESEE, summary, "draft")
    desk.drafts.save_session(Session(selected=CITESEE, draft=DraftRef("summary", paper_id=CITESEE))
                             .to_json("draft-summary"))
    desk.close()
    app = app_on(home, arxiv.api_url)
    async with app.run_test(size=(160, 48)) as pilot:
        await settle(pilot)
        await pilot.press("f3", "right", "right", "enter")  # the second citation: [p. 3]
        reader = app.main.query_one(ReaderPane)
        await settle(pilot, until=lambda: reader.page == page_no and reader.paper_id == CITESEE)
        await pilot.pause(0.3)
        assert reader.passage_found
        assert " ".join(source.split()) in " ".join(reader.passage.split())  # that page sentence is marked
        assert "cited passage marked" in str(app.main.query_one("#reader-header").render())
        assert " ".join(source.split()[:6]) in visible_reader_text(app)
