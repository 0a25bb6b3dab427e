"""Drafts: sem-search answers, research reports, and what every draft can do (improve, save, undo, redo)."""

from __future__ import annotations

import re

from typing import TYPE_CHECKING

from paperdesk.core.agents import answer as answers
from paperdesk.core.agents.answer_result import unsure_note_removed
from paperdesk.core.commands.parse import Command
from paperdesk.core.errors import PaperdeskError
from paperdesk.core.handlers import follow_up, new_paper
from paperdesk.core.commands.session import DraftRef, ResultItem
from paperdesk.core.commands.views import Outcome
from paperdesk.core.progress import counted

if TYPE_CHECKING:
    from paperdesk.core.desk.desk import Desk
    from paperdesk.core.library.library import Hit

def recall_from(desk: "Desk") -> dict:
    """retrieve()'s memory arguments: the library's memory graph adds the pages it recalls."""
    k = desk.settings["memory.recall"]
    return {"memory": desk.memory if k else None, "recall_k": k}


def sem_search(desk: "Desk", command: Command) -> Outcome:
    routed = desk.answer_scope or {}  # a routed question that names one paper or one citation of the draft
    if follow_up.applies(desk, routed):  # "what does [2] say": answered below the draft it refers to
        return follow_up.answer_citation(desk, command, routed)
    if routed.get("citation") is not None:  # that passage and its neighbours, no search
        from paperdesk.core.handlers.cited import cited_passages

        hits = cited_passages(desk.library, routed)
    else:
        hits = answers.retrieve(desk.library, command.text, desk.settings["answer.k"],
                                papers=routed.get("paper_ids"), **recall_from(desk))
    return _draft_from_hits(desk, command, hits, "answer", "answer", desk.settings["answer.max_tokens"])


def research(desk: "Desk", command: Command) -> Outcome:
    hits = answers.retrieve(desk.library, command.text, desk.settings["research.k"], **recall_from(desk))
    return _draft_from_hits(desk, command, hits, "report", "research_report", desk.settings["research.max_tokens"])


def _draft_from_hits(desk: "Desk", command: Command, hits: list["Hit"], kind: str, template: str,
                     max_tokens: int) -> Outcome:
    s = desk.session
    if not hits:
        s.clear_results()
        s.selected, s.draft = None, None
        desk.transition(command, count=0)
        desk.publish_results()
        return Outcome(command.raw, "ok", answers.NOTHING_FOUND)
    draft_id = desk.drafts.new_draft(kind, command.text)
    s.selected = None
    s.draft = DraftRef(kind, draft_id=draft_id, query=command.text)
    if kind == "answer":  # the hits' papers are known now: show them while the answer streams
        _set_results(desk, command, hits, [h.paper_id for h in hits])
        desk.transition(command, count=len(s.results))
    stream = desk.token_stream(kind, command.text)
    result = answers.write(desk.library, desk.backend, command.text, hits, template,
                           on_token=stream, cancel=desk.cancel_token,
                           max_tokens=max_tokens, dialogue=desk.dialogue_block(), note=desk.progress,
                           **answers.answer_options(desk.settings))
    if result.unsure and not result.cancelled:  # kept with the text: a saved answer still says it
        stream(result.shown_text[len(result.text):])
    status = "interrupted" if result.cancelled else "draft"
    revision = desk.drafts.add_draft_revision(draft_id, result.shown_text, result.sources, status)
    if kind == "report":  # lqs = the papers the report cites
        _set_results(desk, command, hits, result.cited_papers)
        desk.transition(command, count=len(s.results))
    desk.publish_results()
    return _draft_outcome(desk, command, revision.revision, result)


def _set_results(desk: "Desk", command: Command, hits: list["Hit"], paper_ids: list[str]) -> None:
    pages: dict[str, list[int]] = {}
    for hit in hits:
        pages.setdefault(hit.paper_id, []).append(hit.page_start)
    papers = desk.store.papers_by_ids(list(dict.fromkeys(paper_ids)))
    s = desk.session
    s.results = [
        ResultItem.from_paper(papers[pid], _pages(pages.get(pid, [])))
        for pid in dict.fromkeys(paper_ids) if pid in papers
    ]
    s.results_kind, s.results_query = command.name, command.text


def _pages(pages: list[int]) -> str:
    unique = sorted(set(pages))
    return ("p. " if len(unique) == 1 else "pp. ") + ", ".join(map(str, unique)) if unique else ""


def _draft_outcome(desk: "Desk", command: Command, revision: int, result: answers.AnswerResult) -> Outcome:
    cited = len(result.citations)
    note = f"revision {revision}; cites {cited} of {counted(len(result.hits), 'source passage')}"
    if result.unsure and not result.cancelled:
        note += "; unsure: check the pages it cites"
    if result.cancelled:
        return Outcome(command.raw, "cancelled", f"interrupted; the partial text is kept as {note}", desk.draft_view())
    return Outcome(command.raw, "ok", note, desk.draft_view())


def improve(desk: "Desk", command: Command) -> Outcome:
    draft = desk.session.draft
    if draft is None:
        raise PaperdeskError("there is no draft to improve; summarize <n>, sem-search or research writes one")
    if draft.kind == "summary":
        return _improve_summary(desk, command)
    if draft.kind == "discussion":  # the feedback becomes one more turn of the discussion
        from paperdesk.core.handlers.discussion import improve as improve_discussion

        return improve_discussion(desk, command)
    current = desk.drafts.current_draft(draft.draft_id or 0)
    old = unsure_note_removed(current.text) if current else ""  # the note is the reader's, not the writer's
    template = "improve_answer"
    k = desk.settings["answer.k"] if draft.kind == "answer" else desk.settings["research.k"]
    max_tokens = desk.settings["answer.max_tokens"] if draft.kind == "answer" else desk.settings["research.max_tokens"]
    result = answers.improve(desk.library, desk.backend, draft.query, old, command.text, k, template,
                             on_token=desk.token_stream(draft.kind, draft.query), cancel=desk.cancel_token,
                             max_tokens=max_tokens, dialogue=desk.dialogue_block(), note=desk.progress)
    if result.cancelled and not _has_sentence(result.text) and current is not None:
        # stopped before the rewrite had a sentence: an empty revision over the good one helps nobody
        return Outcome(command.raw, "cancelled", f"interrupted before the new {draft.kind} had a sentence; "
                       f"the {draft.kind} is unchanged (revision {current.revision})", desk.draft_view())
    status = "interrupted" if result.cancelled else "draft"
    revision = desk.drafts.add_draft_revision(draft.draft_id or 0, result.text, result.sources, status, command.text)
    return _draft_outcome(desk, command, revision.revision, result)


def _has_sentence(text: str) -> bool:
    """Some words of prose: more than citation marks, a heading or a stray token."""
    return len(re.findall(r"[A-Za-z]{2,}", re.sub(r"^#.*$", "", text, flags=re.M))) >= 3


def _improve_summary(desk: "Desk", command: Command) -> Outcome:
    paper = desk.selected_paper()
    if paper is None:
        raise PaperdeskError("the paper being summarized is gone from the library; abandon the draft")
    if desk.store.current_revision(paper.id) is None:  # the first run was cut off before it was stored
        return new_paper.write_summary(desk, command, paper)
    sources = desk.library.passages(command.text, k=3, papers=[paper.id])
    result = new_paper.summarizer(desk).improve(paper.id, command.text, sources,
                                                on_token=desk.token_stream("summary", paper.title),
                                                cancel=desk.cancel_token, dialogue=desk.dialogue_block(),
                                                progress=desk.progress)
    return new_paper.summary_outcome(desk, command, result)


def save(desk: "Desk", command: Command) -> Outcome:
    draft = desk.session.draft
    if draft is None:
        raise PaperdeskError("there is no draft to save")
    if draft.kind == "summary":
        return new_paper.save_summary(desk, command)
    report = desk.drafts.save_report(draft.draft_id or 0, report_name(command.text))
    desk.transition(command)
    return Outcome(command.raw, "ok", f"saved as report #{report.id} {report.title!r}", desk.draft_view())


_THE_DRAFT = re.compile(r"^(?:it|this|that|(?:this|the|that|my) (?:answer|report|draft|one|result))"
                        r"(?:\s+(?:please|now))?(?:\s+(?P<how>as|named|called|titled)\s+(?P<name>.+))?[.!]*$", re.I)


def report_name(text: str) -> str | None:
    """The name `save [name]` gives a report; `save as NAME` (and named / called NAME) is how people say it,
    and so is `save this answer as NAME`; `save this answer` alone gives the default name."""
    name = text.strip()
    first, _, rest = name.partition(" ")
    if first.lower() in ("as", "named", "called") and rest.strip():
        name = rest.strip()
    else:
        said = _THE_DRAFT.match(name)
        if said is not None:
            name = said.group("name") or ""
    return name.strip(" .!\"'“”") or None


def undo(desk: "Desk", command: Command) -> Outcome:
    return _move(desk, command, -1)


def redo(desk: "Desk", command: Command) -> Outcome:
    return _move(desk, command, +1)


def _move(desk: "Desk", command: Command, step: int) -> Outcome:
    draft_id = desk.draft_id()
    if draft_id is None and desk.session.draft is None:
        raise PaperdeskError(f"there is no draft to {command.name}")
    if draft_id is None or desk.store.drafts.move(draft_id, step) is None:
        edge = "the first revision" if step < 0 else "the newest revision"
        raise PaperdeskError(f"nothing to {command.name}: the draft is at {edge}")
    desk.transition(command)
    view = desk.draft_view()
    return Outcome(command.raw, "ok", f"now at revision {view.revision if view else '?'}", view)
