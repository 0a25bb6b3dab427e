"""The new-paper workflow: find, summarize, notes, save (a summary) and abandon."""

from __future__ import annotations

from typing import TYPE_CHECKING

from paperdesk.core.agents.quality import cited_share_line
from paperdesk.core.agents.summarizer import Summarizer
from paperdesk.core.commands.parse import Command
from paperdesk.core.errors import PaperdeskError
from paperdesk.core.commands.session import DraftRef, ResultItem
from paperdesk.core.commands.states import VIEWERS
from paperdesk.core.commands.views import NotesView, Outcome
from paperdesk.core.progress import counted

if TYPE_CHECKING:
    from paperdesk.core.desk.desk import Desk
    from paperdesk.core.db.store import Paper


def find(desk: "Desk", command: Command) -> Outcome:
    found = desk.arxiv.find(command.text, max_results=desk.settings["arxiv.max_results"], cancel=desk.cancel_token)
    desk.context.mark_reachable()
    s = desk.session
    s.results = [ResultItem.from_arxiv(p, desk.paper_in_library(p.short_id)) for p in found]
    s.results_kind, s.results_query = "find", command.text
    s.selected, s.draft = None, None
    desk.transition(command, count=len(found))
    desk.publish_results()
    message = (f"{counted(len(found), 'arXiv result')} for {command.text!r}" if found
               else f"no arXiv results for {command.text!r}")
    return Outcome(command.raw, "ok", message, desk.results_view())


def summarize(desk: "Desk", command: Command) -> Outcome:
    item, ref = desk.resolve(command)
    if desk.state == "select-view" and not desk.paper_in_library(ref):  # viewing never downloads
        raise PaperdeskError(f"{ref} is not in the library; add {ref} adds and summarizes it")
    paper, created = _paper_for_summary(desk, item, ref)
    current = desk.store.current_revision(paper.id)
    s = desk.session
    s.selected = paper.id
    s.clear_results()
    s.draft = DraftRef("summary", paper_id=paper.id, base_revision=current.revision if current else None,
                       added_paper=created)
    desk.transition(command)
    desk.publish_results()
    return write_summary(desk, command, paper)


def _paper_for_summary(desk: "Desk", item: ResultItem | None, ref: str) -> tuple["Paper", bool]:
    """The library paper to summarize, downloading and indexing it first when needed."""
    if desk.paper_in_library(ref):
        return desk.library.get(ref), False
    meta = item.arxiv_paper() if item is not None else None
    result = desk.library.add_arxiv(ref, desk.arxiv, progress=desk.progress, cancel=desk.cancel_token, meta=meta)
    desk.context.mark_reachable()
    return result.paper, result.created


def summarizer(desk: "Desk") -> Summarizer:
    return Summarizer.from_settings(desk.store, desk.backend, desk.settings, desk.library.embedder)


def write_summary(desk: "Desk", command: Command, paper: "Paper") -> Outcome:
    """Stream a fresh summary of the selected paper into a new revision."""
    result = summarizer(desk).summarize(paper.id, on_token=desk.token_stream("summary", paper.title),
                                        cancel=desk.cancel_token, progress=desk.progress,
                                        dialogue=desk.dialogue_block())
    return summary_outcome(desk, command, result)


def summary_outcome(desk: "Desk", command: Command, result) -> Outcome:
    view = desk.draft_view()
    rev = result.revision
    if getattr(result, "unchanged", ""):  # improve: the rewrite said nothing new; nothing was stored
        return Outcome(command.raw, "ok", result.unchanged, view)
    note = f"revision {rev.revision}"
    if result.cancelled:
        note += " kept as interrupted (improve <feedback> continues it, save keeps it)"
    if result.removed_citations:
        note += f"; {counted(len(result.removed_citations), 'unsupported page citation')} removed"
    share = cited_share_line(rev.text)  # counted from the stored text, as the line under the draft counts it
    if share:
        note += "; " + share.replace(" · ", "; ")
    status = "cancelled" if result.cancelled else "ok"
    return Outcome(command.raw, status, f"summary {note}", view)


def notes(desk: "Desk", command: Command) -> Outcome:
    paper = notes_paper(desk)
    if paper is None:
        raise PaperdeskError("no paper is open or selected; open <n> (or summarize <n>) picks one")
    if command.text:
        text = desk.append_notes(paper.id, command.text)
        return Outcome(command.raw, "ok", f"notes of {paper.id} saved", NotesView(paper.id, paper.title, text, True))
    return Outcome(command.raw, "ok", "", NotesView(paper.id, paper.title, desk.notes(paper.id)))


def notes_paper(desk: "Desk") -> "Paper | None":
    """Whose notes `notes` means: while summarizing the selected paper; when viewing, the paper open in
    the reader, else the selected one."""
    reader = desk.session.reader
    if desk.state in VIEWERS and reader is not None:
        paper = desk.store.get_paper(reader[0])
        if paper is not None:
            return paper
    return desk.selected_paper()


def save_summary(desk: "Desk", command: Command) -> Outcome:
    draft = desk.session.draft
    assert draft is not None and draft.paper_id
    current = desk.store.current_revision(draft.paper_id)
    if current is None:
        raise PaperdeskError("there is no summary to save yet (the last one was cut off before it was stored); "
                             "improve <feedback> writes one")
    desk.store.set_revision_status(draft.paper_id, current.revision, "final")
    desk.transition(command)
    paper = desk.selected_paper()
    title = paper.title if paper else draft.paper_id
    return Outcome(command.raw, "ok", f"saved revision {current.revision} of the summary of {title!r}; "
                                      "the paper is in your collection", desk.draft_view())


def abandon(desk: "Desk", command: Command) -> Outcome:
    draft = desk.session.draft
    assert draft is not None and draft.paper_id
    paper = desk.store.get_paper(draft.paper_id)
    if paper is not None and draft.added_paper:
        desk.library.remove(paper.id)
        message = f"abandoned: removed {paper.id} and its index entries from the library"
    else:
        desk.store.discard_revisions_after(draft.paper_id, draft.base_revision)
        message = "abandoned: the draft revisions are discarded; the paper stays in the library"
    s = desk.session
    s.clear_results()
    s.selected, s.draft = None, None
    desk.transition(command)
    desk.publish_results()
    return Outcome(command.raw, "ok", message)


def abandon_question(desk: "Desk") -> str:
    """What `abandon` will discard, as a yes/no question every face asks before it runs."""
    if desk.state == "draft-plan":  # abandon discards the plan under review
        return (f"Abandon the plan for {(desk.session.plan or {}).get('query', '')!r}? Its steps and edits are "
                "discarded; the library is not touched.")
    paper = desk.selected_paper()
    draft = desk.session.draft
    what = f"the draft summary of {paper.title!r}" if paper else "the draft summary"
    extra = (" and remove the paper from the library (this summarize or add put it there)"
             if draft is not None and draft.added_paper else "; the paper stays in the library")
    return f"Abandon {what}{extra}?"
