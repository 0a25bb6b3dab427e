"""`add` (a paper from a file, an arXiv id or URL, straight into its summary draft) and `close`."""

from __future__ import annotations

from typing import TYPE_CHECKING

from paperdesk.core.commands.parse import Command
from paperdesk.core.handlers.new_paper import write_summary
from paperdesk.core.commands.paper_sources import add_source, parse_source
from paperdesk.core.commands.session import DraftRef
from paperdesk.core.commands.views import Outcome

if TYPE_CHECKING:
    from paperdesk.core.desk.desk import Desk


def add(desk: "Desk", command: Command) -> Outcome:
    source = parse_source(command.text)
    client = desk.arxiv if desk.context.offline_reason() is None else None
    result = add_source(desk.library, source, client, progress=desk.progress, cancel=desk.cancel_token)
    if not source.local or source.arxiv is not None and client is not None:
        desk.context.mark_reachable()
    paper = result.paper
    current = desk.store.current_revision(paper.id)
    s = desk.session
    s.selected = paper.id
    s.clear_results()
    s.draft = DraftRef("summary", paper_id=paper.id, base_revision=current.revision if current else None,
                       added_paper=result.created)
    desk.transition(command)
    desk.publish_results()
    outcome = write_summary(desk, command, paper)
    verb = "added" if result.created else "already in the library:"
    return Outcome(outcome.command, outcome.status, f"{verb} {paper.id}; {outcome.message}", outcome.view)


def close(desk: "Desk", command: Command) -> Outcome:
    s = desk.session
    s.clear_results()
    s.selected, s.draft = None, None
    desk.transition(command)
    desk.publish_results()
    return Outcome(command.raw, "ok", "closed; papers, summaries, notes and reports stay stored "
                                      "(list, find <query> or sem-search <query> go on from here)")
