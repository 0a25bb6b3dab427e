"""The view-paper workflow: list the library, show a paper's summary, read it page by page."""

from __future__ import annotations

from typing import TYPE_CHECKING

from paperdesk.core.commands.parse import Command, CommandError
from paperdesk.core.errors import PaperdeskError
from paperdesk.core.commands.session import ResultItem
from paperdesk.core.commands.views import PER_PAGE, DraftView, Outcome, PageView
from paperdesk.core.progress import counted

if TYPE_CHECKING:
    from paperdesk.core.desk.desk import Desk


def list_papers(desk: "Desk", command: Command) -> Outcome:
    from paperdesk.core.commands.list_options import parse_list_options

    _, options = parse_list_options(command.text)
    papers = options.listed(desk.store)
    total = desk.store.count_papers() if options.active else len(papers)
    pages = max(1, -(-len(papers) // PER_PAGE))
    page = command.page or 1
    if page > pages:
        raise CommandError(f"list: page {page} does not exist; the library has {counted(pages, 'page')} of {PER_PAGE}")
    s = desk.session
    s.results = [ResultItem.from_paper(p, counted(p.page_count, 'page')) for p in papers]
    s.results_kind, s.results_query, s.list_filter = "list", options.describe(), command.text
    s.selected, s.draft = None, None
    desk.transition(command, count=len(papers))
    view = desk.results_view(page)
    desk.publish_results()
    if not papers and total:
        return Outcome(command.raw, "ok", f"no paper of the {total} in the library matches {options.describe()}; "
                                          "list shows them all")
    if not papers:
        return Outcome(command.raw, "ok", "the library is empty; find <query>, then summarize <n> adds a paper")
    more = f"; next: list --page {page + 1}" if page < pages else ""
    which = f" {'matches' if len(papers) == 1 else 'match'} {options.describe()}" if options.active else \
        " in the library"
    return Outcome(command.raw, "ok", f"{counted(len(papers), 'paper')}{which}, page {page} of {pages}{more}", view)


def summary(desk: "Desk", command: Command) -> Outcome:
    """The paper's saved summary (its newest revision marked final): a draft nobody saved is not shown."""
    paper = desk.library_paper(command)
    saved = [r for r in desk.store.revisions(paper.id) if r.status == "final"]
    if not saved:
        draft = desk.store.current_revision(paper.id)
        unsaved = f" (its draft, revision {draft.revision}, was never saved)" if draft is not None else ""
        raise PaperdeskError(f"{paper.id} has no saved summary{unsaved}; summarize <n> writes one, save keeps it")
    current = max(saved, key=lambda r: r.revision)
    view = DraftView("summary", paper.title, current.text, current.revision, current.status, paper_id=paper.id)
    return Outcome(command.raw, "ok", f"{paper.id}: summary {view.label.split(' ', 1)[1]}", view)


def open_paper(desk: "Desk", command: Command) -> Outcome:
    paper = desk.library_paper(command)
    page = command.page or 1
    text = desk.store.page_text(paper.id, page)
    if text is None:
        raise CommandError(f"open: {paper.id} has pages 1-{paper.page_count}; there is no page {page}")
    if command.text == "--external":
        from paperdesk.core.library.external import open_pdf

        return Outcome(command.raw, "ok", open_pdf(paper.pdf_path, paper.id, page, desk.settings["reader.pdf_viewer"]))
    desk.session.reader = (paper.id, page)
    desk.persist_session()
    more = f"; next: open {command.ref} {page + 1}" if page < paper.page_count else ""
    view = PageView(paper.id, paper.title, page, paper.page_count, text)
    return Outcome(command.raw, "ok", f"{paper.id}, page {page} of {paper.page_count}{more}", view)
