"""The discussion loop: student asks, teacher answers, observer every K turns, summary after turn N.

Each turn's figures (its cited share) are computed from the turn as stored, and
its question and answer go to the memory graph only when they passed the
student's and teacher's checks (remember.py).

Each turn is stored as it ends (with the agents' state), so a killed or
cancelled discussion resumes from its last finished turn. Events stream to
`on_event`; the cancel token stops the model within a token and leaves the
discussion 'interrupted' and resumable.
"""

from __future__ import annotations

import time
from typing import Any, Callable

from paperdesk.core.cancel import CancelToken
from paperdesk.core.discussion.figures import cited_share
from paperdesk.core.discussion.observer import Observer, render_markdown
from paperdesk.core.discussion.outline import Outline, build_outline
from paperdesk.core.discussion.phrasing import target_for
from paperdesk.core.discussion.question_fit import words_of_paper
from paperdesk.core.discussion.remember import earlier_questions, earlier_targets, remember_turn
from paperdesk.core.discussion.store import DiscussionStore, UnknownDiscussionError
from paperdesk.core.discussion.student import Student, Topic
from paperdesk.core.discussion.teacher import Teacher
from paperdesk.core.discussion.types import DiscussionResult, Event, Turn
from paperdesk.core.errors import CancelledError, InvalidIdError
from paperdesk.core.library.library import Library
from paperdesk.core.llm.backend import Backend
from paperdesk.core.llm.prompt_cache import enable_prompt_cache

EventCallback = Callable[[Event], None]
ROLES = ("student", "teacher", "observer", "memory")


def route(turn: int, every: int, total: int) -> str:
    """What follows turn `turn`: 'summarize' after turn N, 'observe' every K turns, else 'continue'."""
    if turn >= total:
        return "summarize"
    if every > 0 and turn % every == 0:
        return "observe"
    return "continue"


class Discussion:
    """`Discussion(library, backend, memory).run(paper, turns, every, on_event, cancel)`; see the package doc."""

    def __init__(self, library: Library, backend: Backend, memory=None, arxiv=None,  # type: ignore[no-untyped-def]
                 question_tokens: int = 28, answer_tokens: int = 100, store: DiscussionStore | None = None,
                 prompt_cache: bool = True) -> None:
        self.library = library
        self.backend = backend
        self.memory = memory
        self.arxiv = arxiv
        self.question_tokens = question_tokens
        self.answer_tokens = answer_tokens
        self.prompt_cache = prompt_cache  # False only to measure what the cache saves (bench discuss --baseline)
        self.store = store or DiscussionStore(library.store.path)

    def close(self) -> None:
        self.store.close()

    def run(self, paper_ref: str, turns: int = 10, every: int = 3, on_event: EventCallback | None = None,
            cancel: CancelToken | None = None) -> DiscussionResult:
        """Start a new discussion of a library paper and run it to the summary (or until cancelled)."""
        if turns < 1 or every < 1:
            raise InvalidIdError(f"--turns and --every must be at least 1 (got {turns} and {every})")
        paper = self.library.get(paper_ref)
        start = time.perf_counter()
        outline = build_outline(self.library.store, paper.id, paper.title)
        if not outline.sections and not outline.terms:
            raise InvalidIdError(f"{paper.id} has no sections or text to discuss; re-add its PDF")
        student = self._student(outline, None)
        if self.memory is not None:  # what earlier discussions of this paper (and related ones) asked goes last
            earlier = earlier_questions(self.memory, paper.id)
            student.skip_known(earlier.questions, earlier_targets(self.store, earlier.turns), earlier.related)
        teacher = self._teacher(outline, None)
        timings = {"student_s": time.perf_counter() - start}
        did = self.store.create(paper.id, turns, every, _state(student, teacher, timings))
        return self._loop(did, outline, student, teacher, [], turns, every, timings, on_event, cancel)

    def resume(self, discussion_id: int | None = None, on_event: EventCallback | None = None,
               cancel: CancelToken | None = None, paper_ref: str | None = None) -> DiscussionResult:
        """Continue a discussion from its last finished turn (default: the newest unfinished one)."""
        if discussion_id is None:
            paper_id = self.library.get(paper_ref).id if paper_ref else None
            discussion_id = self.store.latest_unfinished(paper_id)
            if discussion_id is None:
                raise UnknownDiscussionError("no unfinished discussion to resume; `paperdesk discuss ID` starts one")
        row = self.store.get(discussion_id)
        paper = self.library.get(row["paper_id"])
        done = self.store.turns(discussion_id)
        outline = build_outline(self.library.store, paper.id, paper.title)
        state = row["state"]
        if row["status"] == "finished":
            return DiscussionResult(discussion_id, paper.id, paper.title, "finished", row["turns"], row["every"], done,
                                    row["summary"] or [], state.get("timings", {}))
        student = self._student(outline, state.get("student"))
        teacher = self._teacher(outline, state.get("teacher"))
        self.store.set_status(discussion_id, "running")
        return self._loop(discussion_id, outline, student, teacher, done, row["turns"], row["every"],
                          dict(state.get("timings", {})), on_event, cancel)

    def follow_up(self, discussion_id: int, question: str, on_event: EventCallback | None = None,
                  cancel: CancelToken | None = None) -> DiscussionResult:
        """One more turn on a question of the reader's (`improve` in draft-discussion), then a new summary.

        The teacher answers `question` from the paper like any turn; the turn is stored and the annotated
        summary is rewritten over all turns. A cancelled follow-up stores nothing new.
        """
        row = self.store.get(discussion_id)
        paper = self.library.get(row["paper_id"])
        done = self.store.turns(discussion_id)
        outline = build_outline(self.library.store, paper.id, paper.title)
        state = row["state"]
        student = self._student(outline, state.get("student"))
        teacher = self._teacher(outline, state.get("teacher"))
        timings = dict(state.get("timings", {}))
        emit = on_event or (lambda event: None)
        n, total = len(done) + 1, len(done) + 1
        topic = Topic("overview", outline.title, origin="reader")  # the reader's question: no term or section to force
        emit(Event("question", discussion_id, n, total, "student", question, topic.to_json()))
        t0 = time.perf_counter()
        answer = teacher.answer(question, topic, discussion_id,
                                lambda text: emit(Event("token", discussion_id, n, total, "teacher", text)), cancel)
        if answer.cancelled:
            raise CancelledError("cancelled")
        timings["teacher_s"] = timings.get("teacher_s", 0.0) + time.perf_counter() - t0
        emit(Event("answer", discussion_id, n, total, "teacher", answer.text, {"citations": answer.citations}))
        turn = Turn(n, topic.to_json(), question, answer.text, answer.citations, answer.sections, answer.pages,
                    answer.literature, 0.0, True, None,
                    {"teacher_s": round(time.perf_counter() - t0, 3)}, answer.supported, answer.not_found,
                    works=answer.works)
        turn.cited_share = round(cited_share(turn), 3)
        if self.memory is not None:
            remember_turn(self.memory, outline, discussion_id, turn, self.library)
        done.append(turn)
        summary = Observer(outline, self.library.embedder.encode).summary(done)
        self.store.add_turn(discussion_id, turn, _state(student, teacher, timings))
        self.store.finish(discussion_id, summary, _state(student, teacher, timings))
        result = DiscussionResult(discussion_id, paper.id, paper.title, "finished", row["turns"], row["every"], done,
                                  summary, timings)
        emit(Event("summary", discussion_id, n, total, "observer", self.markdown(result), {"summary": summary}))
        return result

    def transcript(self, result: DiscussionResult) -> str:
        """The finished turns of an interrupted discussion as markdown (its draft until it is resumed)."""
        lines = [f"# Discussion of {result.title} ({result.paper_id}), interrupted after turn "
                 f"{len(result.turns)} of {result.total}", ""]
        for t in result.turns:
            lines += [f"## Turn {t.n}", f"**Q:** {t.question}", "", f"**A:** {t.answer}", ""]
        lines.append("`discuss --resume` continues it from the next turn.")
        return "\n".join(lines) + "\n"

    def markdown(self, result: DiscussionResult) -> str:
        """The annotated summary as a markdown draft."""
        return render_markdown(result.title, result.paper_id, result.summary)

    # -- the loop -------------------------------------------------------------------------

    def _student(self, outline: Outline, state: dict[str, Any] | None) -> Student:
        store = self.library.store
        words = words_of_paper([outline.title, *(c.text for c in store.chunks_of(outline.paper_id))])
        return Student(outline, self.backend, self.question_tokens, state, self.library.embedder.encode,
                       targets=lambda topic: target_for(store, outline, topic), paper_words=words)

    def _teacher(self, outline: Outline, state: dict[str, Any] | None) -> Teacher:
        return Teacher(self.library, self.backend, outline, self.memory, self.arxiv, self.answer_tokens, state)

    def _loop(self, did: int, outline: Outline, student: Student, teacher: Teacher, done: list[Turn], total: int,
              every: int, timings: dict[str, float], on_event: EventCallback | None,
              cancel: CancelToken | None) -> DiscussionResult:
        emit = on_event or (lambda event: None)
        if self.prompt_cache:
            enable_prompt_cache(self.backend)  # student and teacher prompts alternate: keep both few-shot prefixes
        observer = Observer(outline, self.library.embedder.encode)
        began = time.perf_counter()
        base_total = timings.get("total_s", 0.0)
        for role in ROLES:
            timings.setdefault(f"{role}_s", 0.0)

        def result(status: str, summary: list[dict[str, Any]]) -> DiscussionResult:
            timings["total_s"] = base_total + time.perf_counter() - began
            return DiscussionResult(did, outline.paper_id, outline.title, status, total, every, done, summary, timings)

        # a resumed run carries the turns already stored, so a face can show them above the new ones
        emit(Event("start", did, len(done), total, data={"paper_id": outline.paper_id, "title": outline.title,
                                                           "resumed_after": len(done),
                                                           "earlier": [t.to_json() for t in done]}))
        try:
            for n in range(len(done) + 1, total + 1):
                turn = self._turn(did, n, total, outline, student, teacher, timings, emit, cancel)
                if route(n, every, total) == "observe":
                    t0 = time.perf_counter()
                    turn.insight = observer.insights([*done, turn], every)
                    student.take_insight(turn.insight["student"])
                    teacher.take_insight(turn.insight["teacher"])
                    timings["observer_s"] += time.perf_counter() - t0
                    emit(Event("insight", did, n, total, "observer", data=turn.insight))
                if self.memory is not None:
                    t0 = time.perf_counter()
                    remember_turn(self.memory, outline, did, turn, self.library, student.passage,
                                  student.headings, student.paper_words)
                    timings["memory_s"] += time.perf_counter() - t0
                done.append(turn)
                timings["total_s"] = base_total + time.perf_counter() - began
                self.store.add_turn(did, turn, _state(student, teacher, timings))
                emit(Event("turn", did, n, total, data=turn.to_json()))
            t0 = time.perf_counter()
            summary = observer.summary(done)
            timings["observer_s"] += time.perf_counter() - t0
            final = result("finished", summary)
            self.store.finish(did, summary, _state(student, teacher, timings))
            emit(Event("summary", did, total, total, "observer", self.markdown(final), {"summary": summary}))
            emit(Event("done", did, total, total))
            return final
        except CancelledError:
            partial = result("interrupted", [])
            self.store.set_status(did, "interrupted", _state(student, teacher, timings))
            emit(Event("interrupted", did, len(done), total, text=f"interrupted after turn {len(done)} of {total}"))
            return partial
        except BaseException:
            self.store.set_status(did, "interrupted")
            raise

    def _turn(self, did: int, n: int, total: int, outline: Outline, student: Student, teacher: Teacher,
              timings: dict[str, float], emit: EventCallback, cancel: CancelToken | None) -> Turn:
        if cancel is not None:
            cancel.raise_if_cancelled()
        t0 = time.perf_counter()
        topic = student.next_topic()
        question, phrased = student.ask(topic, cancel=cancel)
        if cancel is not None:
            cancel.raise_if_cancelled()
        student_s = time.perf_counter() - t0
        emit(Event("question", did, n, total, "student", question, topic.to_json()))
        t1 = time.perf_counter()
        answer = teacher.answer(question, topic, did, lambda text: emit(Event("token", did, n, total, "teacher", text)),
                                cancel)
        if answer.cancelled:
            raise CancelledError("cancelled")
        teacher_s = time.perf_counter() - t1
        emit(Event("answer", did, n, total, "teacher", answer.text, {"citations": answer.citations}))
        t2 = time.perf_counter()
        student.heard(topic, answer.text)
        student_s += time.perf_counter() - t2
        timings["student_s"] += student_s
        timings["teacher_s"] += teacher_s
        turn = Turn(n, topic.to_json(), question, answer.text, answer.citations, answer.sections, answer.pages,
                    answer.literature, 0.0, phrased, None,
                    {"student_s": round(student_s, 3), "teacher_s": round(teacher_s, 3)}, answer.supported,
                    answer.not_found, student.why, answer.works)
        turn.cited_share = round(cited_share(turn), 3)  # from what is stored, as every figure of a discussion
        return turn


def _state(student: Student, teacher: Teacher, timings: dict[str, float]) -> dict[str, Any]:
    return {"student": student.state(), "teacher": teacher.state(), "timings": dict(timings)}
