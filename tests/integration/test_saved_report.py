"""A saved research report leaves the user where list and find work, and `save as NAME` names it NAME.

Real library and SQLite; the draft is stored as the app leaves it, so no model runs (FakeLLM is only the
Desk's backend, never called).
"""

import pytest

from conftest import PAPERS
from fake_llm import FakeLLM
from paperdesk.core.desk.desk import Desk

pytestmark = pytest.mark.slow


def test_a_saved_research_report_leaves_list_and_find_open(library, settings, embedder):
    """list is refused while a research report is under review (its papers are the results), and works once the
    report is saved, as after a saved summary; the stored session is reopened as the app would find it."""
    from paperdesk.core.db.desk_store import DeskStore
    from paperdesk.core.commands.session import DraftRef, ResultItem, Session

    paper = library.add_pdf(PAPERS / "2304.02623v1.pdf").paper
    drafts = DeskStore(library.store)
    draft_id = drafts.new_draft("report", "how do writers use AI support?")
    drafts.add_draft_revision(draft_id, "Writers ask for expository help [1].", [], "draft")
    session = Session(results=[ResultItem.from_paper(paper, "p. 2")], results_kind="research",
                      results_query="how do writers use AI support?",
                      draft=DraftRef("report", draft_id=draft_id, query="how do writers use AI support?"))
    drafts.save_session(session.to_json("draft-research"))
    desk = Desk(settings, backend=FakeLLM(), embedder=embedder)
    try:
        assert desk.state == "draft-research"
        refused = desk.run("list")
        assert refused.status == "refused" and "save [name] keeps the report, then list works" in refused.message
        saved = desk.run("save as datasets-report")  # `as` introduces the name, as people say it
        assert saved.ok and "'datasets-report'" in saved.message
        assert [r.title for r in desk.drafts.reports()] == ["datasets-report"]
        assert desk.workflow.refusal("find") is None or "offline" in desk.workflow.refusal("find")
        listed = desk.run("list")
        assert listed.ok and desk.state == "select-view" and len(desk.session.results) == 1
    finally:
        desk.close()
