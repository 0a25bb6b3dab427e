"""Desk views as plain text, for the shell (and anything else that prints)."""

from __future__ import annotations

from datetime import datetime
from typing import Any, Callable

from paperdesk.console import authors
from paperdesk.core.text.passages import locate_passage
from paperdesk.core.commands.views import (
    DialogueView,
    DraftView,
    HelpView,
    HistoryView,
    LinesView,
    MemoryView,
    NotesView,
    PageView,
    PlanView,
    ResultsView,
    StatusView,
    View,
)

from paperdesk.text_discussion import render_memory

DIM, RESET = "\033[2m", "\033[0m"


def render(view: View, color: bool = False, streamed: bool = False) -> str:
    """Plain text for any view; `streamed` skips a draft's text that was already printed token by token."""
    return RENDERERS[type(view)](view, color, streamed)


def render_page(view: PageView, color: bool = False) -> str:
    head = f"== {view.title} ({view.paper_id}), page {view.page} of {view.pages} =="
    text = view.text.rstrip()
    span = locate_passage(text, view.highlight) if view.highlight else None
    if span is not None:  # the cited passage: reverse video on a terminal, >>> <<< marks in plain text
        start, end = span
        mark_in, mark_out = ("\033[7m", RESET) if color else (">>>", "<<<")
        text = text[:start] + mark_in + text[start:end] + mark_out + text[end:]
    elif view.highlight:
        head += f"\n(the passage {view.highlight[:60]!r} was not found on this page)"
    return f"{head}\n\n{text}"


def render_lines(view: LinesView) -> str:
    return "\n".join([f"{view.title}:", *(f"  {line}" for line in view.lines)] if view.lines else [view.title])


def render_notes(view: NotesView) -> str:
    body = view.text.rstrip() or "(no notes yet; notes <text> adds some)"
    return f"notes on {view.paper_id} ({view.title}):\n{body}"


def render_history(view: HistoryView) -> str:
    if not view.rows:
        return "(the conversation history is empty)"
    return "\n".join(
        f"{datetime.fromtimestamp(t).strftime('%H:%M:%S')}  [{state}] {command}  -> {outcome}"
        for command, state, outcome, t in view.rows
    )


def render_dialogue(view: DialogueView) -> str:
    if not view.turns:
        return "(no dialogue yet: messages to the dispatcher and its replies show here)"
    return "\n".join(f"{who}: {text}" for who, text in view.turns)


def render_results(view: ResultsView) -> str:
    lines = []
    for n, item in view.page_items:
        year = f" ({item.year})" if item.year else ""
        mark = "  [in library]" if item.in_library and view.kind == "find" else ""
        detail = f"  {item.detail}" if item.detail else ""
        lines.append(f"{n:>3}. {item.id:<18} {item.title}")
        lines.append(f"     {authors(item.authors)}{year}{detail}{mark}")
    if view.pages > 1:
        lines.append(f"page {view.page} of {view.pages} ({len(view.items)} results)")
    return "\n".join(lines)


def render_sources(sources: list[dict[str, Any]]) -> str:
    if not sources:
        return ""
    lines = ["Sources:"]
    for s in sources:
        mark = "" if s.get("cited", True) else "  (not cited)"
        via = f"  ({s['via']})" if s.get("via") else ""  # found through the memory graph
        lines.append(f"[{s['n']}] {s.get('title', '')} ({s['paper_id']}, p. {s['page']}){via}{mark}")
    return "\n".join(lines)


def render_draft(view: DraftView, streamed: bool = False) -> str:
    parts = []
    if not streamed:
        parts.append(view.text.rstrip() or f"(the {view.kind} has no text yet)")
    sources = render_sources(view.sources)
    if sources:
        parts.append(sources)
    return "\n\n".join(p for p in parts if p)


# the plan under review, as the shell prints it.
STEP_ICONS = {"PENDING": "·", "IN_PROGRESS": "▶", "COMPLETED": "✓", "FAILED": "✗", "SKIPPED": "-"}
RED, GREEN, YELLOW = "\033[31m", "\033[32m", "\033[33m"


def render_plan(view: PlanView, color: bool = False) -> str:
    head = f"plan for: {view.query}  (made by {view.made_by}{', run ' + str(view.run_id) if view.run_id else ''})"
    lines = [head]
    for row in view.steps:
        took = f"  {row.seconds:.1f} s" if row.seconds is not None else ""
        lines.append(f" {STEP_ICONS.get(row.status, '?')} {row.line}{took}")
        lines.append(f"      {row.description}" + (f"  [{row.status.lower()}: {row.error}]" if row.error else ""))
    if view.streaming:
        lines.append(" … planning")
    if view.diff:
        lines.append("pending revision (accept or reject):")
        paint = {"removed": RED, "added": GREEN, "changed": YELLOW, "moved": YELLOW}
        for kind, text in view.diff:
            lines.append(f"{paint[kind]}  {text}{RESET}" if color else f"  {text}")
    if view.problem:
        lines.append(f"cannot build: {view.problem}")
    lines += [f"note: {n}" for n in view.notes]
    if view.toml:
        lines += ["", view.toml.rstrip()]
    return "\n".join(lines)


# One renderer per view (views.VIEWS); a test checks that none is missing.
RENDERERS: dict[type, Callable[[Any, bool, bool], str]] = {
    ResultsView: lambda v, color, streamed: render_results(v),
    DraftView: lambda v, color, streamed: render_draft(v, streamed),
    PageView: lambda v, color, streamed: render_page(v, color),
    LinesView: lambda v, color, streamed: render_lines(v),
    NotesView: lambda v, color, streamed: render_notes(v),
    HelpView: lambda v, color, streamed: render_help(v, color),
    StatusView: lambda v, color, streamed: "\n".join(v.lines()),
    HistoryView: lambda v, color, streamed: render_history(v),
    DialogueView: lambda v, color, streamed: render_dialogue(v),
    PlanView: lambda v, color, streamed: render_plan(v, color),
    MemoryView: lambda v, color, streamed: render_memory(v),
}


def render_help(view: HelpView, color: bool = False) -> str:
    width = max((len(r.usage) for r in view.rows), default=10) + 2
    lines = []
    for row in view.rows:
        line = f"  {row.usage:<{width}}{row.summary}"
        if not row.enabled:
            line = f"{line}\n  {'':<{width}}disabled: {row.reason}"
            line = f"{DIM}{line}{RESET}" if color else line
        lines.append(line)
    if not view.topic:
        lines.append("Commands shown dimmed (or marked disabled) cannot run now; the reason says what enables them.")
    return "\n".join(lines)
