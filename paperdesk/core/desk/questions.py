"""Questions the faces ask the Desk: is a paper in the library, which paper a command's <n|id> names,
the current draft at its revision, the status line."""

from __future__ import annotations

from typing import TYPE_CHECKING

from paperdesk.core.commands.parse import Command, CommandError
from paperdesk.core.commands.session import ResultItem
from paperdesk.core.commands.views import DraftView, StatusView, short_title
from paperdesk.core.errors import PaperdeskError, UnknownPaperError

if TYPE_CHECKING:
    from paperdesk.core.db.store import Paper


class DeskQuestions:
    """Mixed into Desk: read-only answers about the library, the results and the draft."""

    def paper_in_library(self, ref: str) -> bool:
        try:
            self.library.get(ref)
        except PaperdeskError:
            return False
        return True

    def selected_paper(self) -> "Paper | None":
        pid = self.session.selected
        return self.store.get_paper(pid) if pid else None

    def resolve(self, command: Command) -> tuple[ResultItem | None, str]:
        """(result item or None, paper id) for a command's <n|id>; out-of-range numbers are errors."""
        ref = command.ref
        assert ref is not None
        if ref.number is None:
            return None, ref.paper_id or ""
        results = self.session.results
        if not results:
            raise CommandError(f"{command.name} {ref.number}: there are no results to pick from; "
                               "run find, list or sem-search first, or give a paper id")
        if not 1 <= ref.number <= len(results):
            raise CommandError(f"{command.name} {ref.number}: no such result; the results are numbered 1-{len(results)}")
        item = results[ref.number - 1]
        return item, item.id

    def library_paper(self, command: Command) -> "Paper":
        item, pid = self.resolve(command)
        try:
            return self.library.get(pid)
        except UnknownPaperError:
            if item is not None:
                raise UnknownPaperError(f"{pid} is not in the library (it was removed); run list again") from None
            raise

    def draft_id(self) -> int | None:
        """The id (in the one draft model) of the session's draft; a summary's is found by its paper."""
        ref = self.session.draft
        if ref is None:
            return None
        if ref.draft_id is None and ref.paper_id:
            return self.store.drafts.summary_of(ref.paper_id)
        return ref.draft_id

    def can_move(self, step: int) -> bool:
        """Whether undo (-1) / redo (+1) has a revision to go to now (palette and keys offer them only then)."""
        draft_id = self.draft_id()
        return draft_id is not None and self.store.drafts.can_move(draft_id, step)

    def draft_view(self) -> DraftView | None:
        """The current draft at its current revision."""
        ref = self.session.draft
        if ref is None:
            return None
        title = ref.query
        if ref.paper_id:
            paper = self.store.get_paper(ref.paper_id)
            title = paper.title if paper else ref.paper_id
        draft_id = self.draft_id()
        current = self.store.drafts.current(draft_id) if draft_id is not None else None
        if current is None:
            return DraftView(ref.kind, title, "", None, "draft", query=ref.query, paper_id=ref.paper_id)
        return DraftView(ref.kind, title, current.text, current.revision, current.status, current.sources,
                         ref.query, ref.paper_id)

    def status(self) -> StatusView:
        paper = self.selected_paper()
        selected = f"{paper.id}  {short_title(paper.title)}" if paper else "none"
        view = self.draft_view()
        return StatusView(self.state, selected, len(self.session.results), view.label if view else "none",
                          self.context.mode, self.session.mode, self.talk.dialogue.user_messages())

    def dialogue_block(self) -> str:
        """The "User dialogue" prompt block for every agent of the cycle ("" when there is none)."""
        return self.talk.prompt_block()
