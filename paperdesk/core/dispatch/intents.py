"""From an intent (find, open, improve, ...) and a message to a concrete command line, or a question back.

Each builder fills the command's argument from the message and the session
(ordinals, ids, titles, "this paper", pages); when a needed argument cannot
be resolved it returns a clarify decision that names what is missing.
"""

from __future__ import annotations

import re
from typing import Callable

from paperdesk.core.dispatch import resolve, slots
from paperdesk.core.dispatch.types import Decision, DispatchContext

NAVIGATE_INTENTS = frozenset({"open", "next", "previous"})
BARE = {"save": "save", "abandon": "abandon", "undo": "undo", "redo": "redo", "list": "list"}
# History lines that are not worth repeating for "do it again".
_NOT_REPEATABLE = frozenset({"help", "status", "history", "clear", "quit", "exit", "dialogue", "?"})
_REPEAT_RE = re.compile(r"^(?:please\s+)?(?:do (?:it|that|this) (?:again|once more)|again|repeat(?: (?:that|it|the last"
                        r"(?: one| command)?))?|same (?:again|thing(?: again| once more)?)|one more time|redo that)"
                        r"(?:\s+please)?[.!]*$", re.I)


def clarify(question: str, reason: str, confidence: float = 0.4) -> Decision:
    return Decision("clarify", None, None, confidence, reason, question=question, stage="rule")


def which_paper(ctx: DispatchContext, verb: str, message: str) -> Decision:
    """The question back when a command needs a paper the message does not resolve."""
    bad = resolve.out_of_range_ordinal(message, ctx)
    if bad is not None and ctx.results:
        return clarify(f"There is no result {bad}; the results are numbered 1-{len(ctx.results)}. Which one should "
                       f"I {verb}?", f"result {bad} is out of range", 0.5)
    if ctx.results:
        return clarify(f"Which paper should I {verb}: a number 1-{len(ctx.results)}, a title or an id?",
                       f"{verb} needs a paper and the message does not say which", 0.45)
    return clarify(f"Which paper should I {verb}? There are no results to pick from: give a title or an id, "
                   "or find / list papers first.", f"{verb} needs a paper and nothing is listed or selected", 0.45)


def build(intent: str, message: str, ctx: DispatchContext, confidence: float, reason: str,
          stage: str) -> Decision:
    """The decision for an intent other than a question (questions go to the router)."""
    builder = _BUILDERS.get(intent)
    if builder is not None:
        decision = builder(message, ctx, confidence, reason)
    elif intent in BARE:
        decision = Decision("delegate", BARE[intent], None, confidence, reason)
    else:
        decision = clarify("What would you like to do? For example: find papers on a topic, summarize a "
                           "result, ask a question about your library.",
                           "the message does not say what to do", min(confidence, 0.4))
    if decision.stage == "rule" and decision.action != "clarify":
        decision.stage = stage
    return decision


def _find(message: str, ctx: DispatchContext, confidence: float, reason: str) -> Decision:
    query = slots.find_query(message)
    if not query:
        return clarify("Find papers about what topic?", "a search request without a topic", 0.45)
    return Decision("delegate", f"find {query}", None, confidence, reason or "asks for new papers on arXiv")


def _paper_command(verb: str, action: str = "delegate") -> Callable[..., Decision]:
    def build_it(message: str, ctx: DispatchContext, confidence: float, reason: str) -> Decision:
        named = resolve.named_paper(message, ctx)
        if named is None:
            # "summarize" / "open" with exactly one candidate in view needs no question.
            pid = resolve.current_paper(ctx) if not resolve.ordinal(message, ctx) else None
            if pid is None:
                return which_paper(ctx, verb, message)
            named = resolve.Named(pid, pid, "deictic")
        page = resolve.page(message) if verb == "open" else None
        command = f"{verb} {named.ref}" + (f" {page}" if page else "")
        how = {"ordinal": f"result {named.ref}", "id": "the id given", "title": "the title named",
               "deictic": "the paper open or selected now"}[named.how]
        return Decision(action, command, None, confidence, f"{reason}; the paper is {how}".lstrip("; "))

    return build_it


def _turn(step: int) -> Callable[..., Decision]:
    def build_it(message: str, ctx: DispatchContext, confidence: float, reason: str) -> Decision:
        if ctx.reader is None:
            return clarify("No paper is open in the reader. Which paper should I open?",
                           "next/previous page with nothing open", 0.45)
        pid, current = ctx.reader
        target = current + step
        if target < 1:
            return clarify(f"{pid} is already at page 1. Which page do you want?", "no page before page 1", 0.5)
        word = "next" if step > 0 else "previous"
        return Decision("navigate", f"open {pid} {target}", None, confidence, f"the {word} page of the paper open "
                        f"in the reader (page {current} -> {target})")

    return build_it


def _notes(message: str, ctx: DispatchContext, confidence: float, reason: str) -> Decision:
    text = slots.note_text(message)
    if text:
        return Decision("delegate", f"notes {text}", None, confidence, reason or "adds to the paper's notes")
    return Decision("delegate", "notes", None, confidence, reason or "opens the paper's notes")


def _improve(message: str, ctx: DispatchContext, confidence: float, reason: str) -> Decision:
    if ctx.state == "draft-plan":  # feedback on a plan under review proposes a plan revision
        return Decision("delegate", f"revise {slots.feedback(message)}", None, confidence,
                        reason or "feedback on the plan under review")
    return Decision("delegate", f"improve {slots.feedback(message)}", None, confidence,
                    reason or "feedback on the current draft")


def repeat(message: str, ctx: DispatchContext) -> Decision | None:
    """"do it again": the last command worth repeating, or a question when there is none."""
    if not _REPEAT_RE.match(message.strip()):
        return None
    for line in reversed(ctx.history):
        name = line.split(" ", 1)[0].lower()
        if name not in _NOT_REPEATABLE:
            action = "navigate" if name == "open" else ("answer" if name in ("sem-search", "research") else "delegate")
            route = {"sem-search": "simple", "research": "complex"}.get(name)
            return Decision(action, line, route, 0.9, f"repeats the last command ({line})")
    return clarify("Do what again? Nothing has run in this session yet: what would you like to do?",
                   "asks to repeat, but there is no command in the history", 0.5)


def _repeat(message: str, ctx: DispatchContext, confidence: float, reason: str) -> Decision:
    decided = repeat("do it again", ctx)
    assert decided is not None
    # The exemplars only guessed "repeat": the decision is as sure as that guess, not as a literal "do it again".
    decided.confidence = min(decided.confidence, confidence)
    decided.reason = f"{decided.reason}; {reason}" if reason else decided.reason
    return decided


_BUILDERS: dict[str, Callable[..., Decision]] = {
    "find": _find,
    "summarize": _paper_command("summarize"),
    "summary": _paper_command("summary"),
    "open": _paper_command("open", "navigate"),
    "next": _turn(+1),
    "previous": _turn(-1),
    "notes": _notes,
    "improve": _improve,
    "repeat": _repeat,
}
