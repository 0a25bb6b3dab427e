"""Text for the discussion and the memory graph: live discussion steps and memory nodes.

The shell prints a running discussion with `discussion_text` as its events
arrive; `render_memory` is the text face of `MemoryView`.
"""

from __future__ import annotations

from paperdesk.core.commands.views import DiscussionProgress, MemoryView
from paperdesk.core.progress import counted


def discussion_text(event: DiscussionProgress) -> str:
    """What the shell prints for one step of a running discussion ("" for steps it shows otherwise)."""
    if event.kind == "start":
        resumed = event.data.get("resumed_after")
        return (f"Discussion {event.discussion_id} of {event.data.get('title', '')}"
                + (f" (resumed after turn {resumed})" if resumed else "") + "\n")
    if event.kind == "question":
        return f"\n[turn {event.turn}/{event.total}] Student: {event.text}\nTeacher: "
    if event.kind == "token":
        return event.text
    if event.kind == "answer":
        return "\n"
    if event.kind == "insight":
        return (f"Observer to student: {event.data['student']['text']}\n"
                f"Observer to teacher: {event.data['teacher']['text']}\n")
    return ""


def render_memory(view: MemoryView) -> str:
    """Entities with up to three observations each (cited to paper and page), then their relations."""
    if not view.entities:
        return "(no memory nodes)"
    lines = []
    for n, e in enumerate(view.entities, start=1):
        lines.append(f"{n:>3}. {e.name} ({e.type})")
        for o in e.observations[:3]:
            source = f"  ({o.source})" if o.source else ""
            lines.append(f"       - {clip(o.text)}{source}")
        if len(e.observations) > 3:
            lines.append(f"       ... {counted(len(e.observations) - 3, 'more observation')}")
    if view.relations:
        lines.append("relations:")
        lines += [f"  {r.source} --{r.type}--> {r.target}" for r in view.relations[:30]]
    return "\n".join(lines)


def clip(text: str, limit: int = 160) -> str:
    words = " ".join(text.split())
    return words if len(words) <= limit else words[:limit].rsplit(" ", 1)[0] + " ..."
