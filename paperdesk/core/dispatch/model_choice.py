"""The optional model call for what rules and exemplars leave ambiguous: pick one of a few intents.

The model only fills one short field constrained by a JSON schema enum (a
grammar on llama.cpp), after a few-shot prompt; anything else (an error,
garbage, a cancelled call) returns None and the caller falls back to its
deterministic answer (a clarifying question).
"""

from __future__ import annotations

from typing import Any

from paperdesk.core.errors import PaperdeskError

DESCRIPTIONS = {
    "find": "search arXiv for new papers on a topic",
    "summarize": "write a summary of one listed paper",
    "summary": "show the saved summary of a paper",
    "open": "open a paper in the reader",
    "next": "go to the next page",
    "previous": "go to the previous page",
    "list": "list the papers in the library",
    "notes": "add to the paper's notes",
    "improve": "change the current draft as the user asks",
    "save": "keep the current draft",
    "abandon": "discard the current draft",
    "undo": "go back one draft revision",
    "redo": "go forward one draft revision",
    "repeat": "repeat the last command",
    "vague": "unclear: ask the user what they mean",
    "ask-simple": "answer a short question from the library",
    "ask-complex": "research a broad or comparative question across papers",
}
_SHOTS = (
    ("look for papers about speech translation", "find"),
    ("make the draft less technical", "improve"),
    ("what loss function do they use", "ask-simple"),
)


def choose_intent(backend: Any, message: str, candidates: list[str], state: str) -> str | None:
    """One of `candidates` chosen by the model, or None when it cannot say (never raises for model trouble)."""
    from paperdesk.core.llm.backend import GenerationRequest, generate_json

    options = [c for c in candidates if c in DESCRIPTIONS]
    if len(options) < 2:
        return None
    menu = "\n".join(f"- {c}: {DESCRIPTIONS[c]}" for c in options)
    shots = "\n".join(f'Message: {m}\nAnswer: {{"intent": "{i}"}}' for m, i in _SHOTS)
    prompt = (f"Choose what the user of a paper-reading app wants. Options:\n{menu}\n\n{shots}\n\n"
              f"(The app is in state {state}.)\nMessage: {message.strip()}\nAnswer: ")
    schema = {"type": "object", "properties": {"intent": {"type": "string", "enum": options}},
              "required": ["intent"]}
    request = GenerationRequest(prompt=prompt, max_tokens=24, temperature=0.0, seed=1, json_schema=schema)
    try:
        data, _ = generate_json(backend, request)
    except (PaperdeskError, ValueError, OSError, RuntimeError):
        return None
    choice = data.get("intent") if isinstance(data, dict) else None
    return choice if choice in options else None
