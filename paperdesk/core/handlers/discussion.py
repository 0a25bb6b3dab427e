"""Discuss a paper and search the memory graph the discussions keep.

`discuss` streams a student/teacher/observer discussion turn by turn as
`DiscussionProgress` events; the workflow enters draft-discussion as soon as
the discussion row exists (so a kill -9 resumes there), and the annotated
summary becomes a "discussion" draft in the one draft model, which improve,
save, undo and redo work on. lqs = the papers the discussion cited.
"""

from __future__ import annotations

import shlex
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from paperdesk.core.commands.parse import Command, CommandError, parse_ref
from paperdesk.core.errors import PaperdeskError
from paperdesk.core.commands.session import DraftRef, ResultItem
from paperdesk.core.commands.views import DiscussionProgress, MemoryView, Outcome
from paperdesk.core.progress import counted

if TYPE_CHECKING:
    from paperdesk.core.desk.desk import Desk
    from paperdesk.core.discussion import Discussion, DiscussionResult, Event
    from paperdesk.core.db.store import Paper

USAGE = "discuss [<n|id>] [--turns N] [--every K] [--resume]"
DEFAULT_TURNS, DEFAULT_EVERY = 10, 3
MAX_TURNS = 50
ANSWER_TOKENS = 100  # a turn's answer; the summary is computed, so short answers keep a 10-turn run near 4 minutes


@dataclass(frozen=True)
class DiscussArgs:
    ref: str | None = None
    turns: int = DEFAULT_TURNS
    every: int = DEFAULT_EVERY
    resume: bool = False


def parse_discuss(text: str) -> DiscussArgs:
    """`[<n|id>] [--turns N] [--every K] [--resume]`; CommandError says what is wrong."""
    try:
        words = shlex.split(text)
    except ValueError as exc:
        raise CommandError(f"discuss: {exc} (usage: {USAGE})") from None
    ref, turns, every, resume = None, DEFAULT_TURNS, DEFAULT_EVERY, False
    i = 0
    while i < len(words):
        word = words[i]
        name, eq, inline = word.partition("=")
        if name in ("--turns", "--every"):
            value = inline if eq else (words[i + 1] if i + 1 < len(words) else "")
            i += 0 if eq else 1
            if not value.isdigit() or not 1 <= int(value) <= MAX_TURNS:
                raise CommandError(f"discuss: {name} takes a whole number from 1 to {MAX_TURNS}, got {value!r} "
                                   f"(usage: {USAGE})")
            turns, every = (int(value), every) if name == "--turns" else (turns, int(value))
        elif word == "--resume":
            resume = True
        elif word.startswith("-"):
            raise CommandError(f"discuss: unknown option {word!r} (usage: {USAGE})")
        elif ref is None:
            parse_ref(word, "discuss")  # a number or a paper id, else a clear error
            ref = word
        else:
            raise CommandError(f"discuss: too many arguments {text!r} (usage: {USAGE})")
        i += 1
    return DiscussArgs(ref, turns, every, resume)


def discussion_for(desk: "Desk") -> "Discussion":
    from paperdesk.core.discussion import Discussion

    arxiv = desk.arxiv if desk.context.offline_reason() is None else None
    return Discussion(desk.library, desk.backend, desk.memory, arxiv,
                      answer_tokens=min(desk.settings["answer.max_tokens"], ANSWER_TOKENS))


def _paper(desk: "Desk", args: DiscussArgs) -> "Paper | None":
    """The paper named, else the selected one, else the one open in the reader, else the current discussion's."""
    if args.ref is not None:
        return desk.library_paper(Command("discuss", ref=parse_ref(args.ref, "discuss"), raw=f"discuss {args.ref}"))
    s = desk.session
    for pid in (s.selected, s.reader[0] if s.reader else None,
                s.draft.paper_id if s.draft and s.draft.kind == "discussion" else None):
        if pid and desk.paper_in_library(pid):
            return desk.library.get(pid)
    return None


def discuss(desk: "Desk", command: Command) -> Outcome:
    args = parse_discuss(command.text)
    # --resume without a paper: the session's discussion, else the newest unfinished one (not the selection's)
    paper = None if args.resume and args.ref is None else _paper(desk, args)
    if paper is None and not args.resume:
        raise CommandError("discuss: which paper? name one (discuss <n|id>), or open one in the reader first")
    discussion = discussion_for(desk)
    started: dict[str, Any] = {}

    def on_event(event: "Event") -> None:
        if event.kind == "start":
            started["id"] = event.discussion_id
            _enter(desk, command, event.discussion_id, event.data["paper_id"], event.data["title"])
        desk.emit(DiscussionProgress(event.kind, event.discussion_id, event.turn, event.total, event.role,
                                     event.text, dict(event.data)))

    try:
        if args.resume:
            did = _resumable(desk, discussion, paper)
            result = discussion.resume(did, on_event, desk.cancel_token)
        else:
            assert paper is not None
            result = discussion.run(paper.id, args.turns, args.every, on_event, desk.cancel_token)
        return _finish(desk, command, discussion, result)
    finally:
        discussion.close()


def _resumable(desk: "Desk", discussion: "Discussion", paper: "Paper | None") -> int:
    draft = desk.session.draft
    if paper is None and draft is not None and draft.kind == "discussion" and draft.discussion_id is not None:
        if discussion.store.get(draft.discussion_id)["status"] != "finished":
            return draft.discussion_id
    did = discussion.store.latest_unfinished(paper.id if paper else None)
    if did is None:
        which = f" of {paper.id}" if paper else ""
        raise PaperdeskError(f"discuss --resume: no unfinished discussion{which}; discuss <n|id> starts one")
    return did


def _enter(desk: "Desk", command: Command, discussion_id: int, paper_id: str, title: str) -> None:
    """The discussion row exists: point the draft at it and enter draft-discussion (persisted at once)."""
    s = desk.session
    draft = s.draft
    if not (draft and draft.kind == "discussion" and draft.discussion_id == discussion_id and draft.draft_id):
        draft_id = desk.drafts.new_draft("discussion", f"discussion of {title}")
        s.draft = DraftRef("discussion", paper_id=paper_id, draft_id=draft_id, query=f"discussion of {title}",
                           discussion_id=discussion_id)
    s.selected = paper_id
    _set_results(desk, [paper_id])
    desk.transition(command)
    desk.publish_results()


def _set_results(desk: "Desk", paper_ids: list[str]) -> None:
    papers = desk.store.papers_by_ids(paper_ids)
    s = desk.session
    s.results = [ResultItem.from_paper(papers[pid], "discussed" if n == 0 else "cited")
                 for n, pid in enumerate(paper_ids) if pid in papers]
    s.results_kind, s.results_query = "discuss", paper_ids[0] if paper_ids else ""


def _finish(desk: "Desk", command: Command, discussion: "Discussion", result: "DiscussionResult") -> Outcome:
    draft = desk.session.draft
    if draft is None or draft.kind != "discussion" or draft.discussion_id != result.id:  # finished before: no start
        _enter(desk, command, result.id, result.paper_id, result.title)
        draft = desk.session.draft
    assert draft is not None and draft.draft_id is not None
    _set_results(desk, result.cited_papers)
    desk.publish_results()
    desk._persist()
    turns = f"{len(result.turns)} of {counted(result.total, 'turn')}"
    if result.status == "interrupted":
        text = discussion.transcript(result)
        revision = desk.drafts.add_draft_revision(draft.draft_id, text, _sources(result), "interrupted")
        return Outcome(command.raw, "cancelled", f"discussion {result.id} interrupted after {turns} (revision "
                       f"{revision.revision}); discuss --resume continues it", desk.draft_view())
    current = desk.drafts.current_draft(draft.draft_id)
    text = discussion.markdown(result)
    if current is None or current.text != text:
        desk.drafts.add_draft_revision(draft.draft_id, text, _sources(result))
    cited = [t.cited_share for t in result.turns]
    share = f"; {sum(cited) / len(cited):.0%} of the teacher's sentences cited" if cited else ""
    return Outcome(command.raw, "ok", f"discussion {result.id}: {turns}, annotated summary as revision "
                   f"{desk.draft_view().revision}{share}; save keeps it as a report",  # type: ignore[union-attr]
                   desk.draft_view())


def _sources(result: "DiscussionResult") -> list[dict[str, Any]]:
    """The passages the answers cited, numbered, as every draft lists its sources."""
    out: list[dict[str, Any]] = []
    seen: set[tuple[str, int]] = set()
    for turn in result.turns:
        for c in turn.citations:
            key = (str(c.get("paper_id") or ""), int(c.get("page") or 0))
            if key[0] and key not in seen:
                seen.add(key)
                out.append({"n": len(out) + 1, "paper_id": key[0], "page": key[1], "title": c.get("title", ""),
                            "cited": True})
    return out


def improve(desk: "Desk", command: Command) -> Outcome:
    """improve <feedback> in draft-discussion: one more turn answering the feedback, and a new annotated summary."""
    draft = desk.session.draft
    assert draft is not None
    if draft.discussion_id is None:
        raise PaperdeskError("this discussion draft has no discussion behind it; discuss <n|id> starts one")
    discussion = discussion_for(desk)
    try:
        if discussion.store.get(draft.discussion_id)["status"] != "finished":
            raise PaperdeskError("the discussion is unfinished; discuss --resume finishes it, then improve")

        def on_event(event: "Event") -> None:
            desk.emit(DiscussionProgress(event.kind, event.discussion_id, event.turn, event.total, event.role,
                                         event.text, dict(event.data)))

        result = discussion.follow_up(draft.discussion_id, command.text, on_event, desk.cancel_token)
        revision = desk.drafts.add_draft_revision(draft.draft_id or 0, discussion.markdown(result), _sources(result),
                                                  "draft", command.text)
    finally:
        discussion.close()
    _set_results(desk, result.cited_papers)
    desk.publish_results()
    return Outcome(command.raw, "ok", f"revision {revision.revision}: turn {len(result.turns)} answers your "
                                      "feedback, and the annotated summary covers it", desk.draft_view())


def memory(desk: "Desk", command: Command) -> Outcome:
    graph = desk.memory.search_nodes(command.text, k=20)
    total = desk.memory.count()
    view = MemoryView(command.text, graph.entities, graph.relations, total)
    if not graph.entities:
        note = ("the memory graph is empty; discuss <n|id> fills it" if total == 0
                else f"no memory node matches {command.text!r} ({counted(total, 'node')} in all)")
        return Outcome(command.raw, "ok", note, view)
    what = f"matching {command.text!r}" if command.text else "newest first"
    return Outcome(command.raw, "ok", f"{counted(len(graph.entities), 'memory node')} {what}, of {total}", view)


def unfinished_discussion(desk: "Desk") -> int | None:
    """The session's discussion when it did not finish (killed or interrupted): the one to resume on start."""
    draft = desk.session.draft
    if desk.state != "draft-discussion" or draft is None or draft.kind != "discussion" or draft.discussion_id is None:
        return None
    from paperdesk.core.discussion import DiscussionStore, UnknownDiscussionError

    store = DiscussionStore(desk.store.path)
    try:
        return draft.discussion_id if store.get(draft.discussion_id)["status"] != "finished" else None
    except UnknownDiscussionError:
        return None
    finally:
        store.close()


def resume_notice(desk: "Desk") -> str | None:
    """What the shell says on start when the session's discussion is unfinished."""
    did = unfinished_discussion(desk)
    return None if did is None else f"discussion {did} is unfinished: discuss --resume continues it"
