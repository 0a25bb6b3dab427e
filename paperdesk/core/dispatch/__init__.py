"""Talk to the desk: the free-text dispatcher and the question router, headless.

Wiring for a face (Desk / TUI / shell), once the command registry lands:

    catalog = from_registry()                   # the registry's delegable commands
    dispatcher = Dispatcher(library.embedder.phrases(), catalog)  # backend=: optional model pick
    dispatcher.warm()                             # encode the exemplars in a startup worker
    dialogue = Dialogue.from_json(session_json.get("dialogue"))        # persisted with the session

    # a line that does not start with a command word (or `ask <message>`):
    context = session_context.from_session(desk.state, desk.session, desk.store, desk.drafts, dialogue)
    decision = dispatcher.decide(line, context)  # before dialogue.receive(line): a pending question
    dialogue.receive(line)                       #   makes this line a solicited reply
    show(decision.line())                        # "-> find table extraction (delegate, 0.93)"
    if decision.action == "clarify":
        dialogue.ask(decision.question)
    else:
        dialogue.note(decision.line())
        outcome = desk.run(decision.command)     # same guards as a typed command; scope narrows answers
    dialogue.after_command(name_of_every_command_run)   # clears at save / abandon / clear
    prompt += dialogue.as_prompt_block()         # "User dialogue" block for plan/do/check/improve

`Decision.scope` narrows an answer (direct-paper: paper_ids; citation: citation,
paper_ids, page); `Decision.confidence` below ~0.6 is where a face asks Enter/Esc,
and nothing under `dispatcher.ACT_FLOOR` runs at all (the dispatcher asks). A
decision for a command that discards work (`registry.discards`) is never run
straight away: `Talk.submit` answers with `Outcome.confirm` and the next message
says yes or not (confirm.py).
"""

# Loaded on first use: the dispatcher pulls numpy (exemplar similarity), and the Desk and the TUI import
# this package at startup, where only the light parts (talk, dialogue, types) are needed.
_EXPORTS = {
    "ACTIONS": "types", "ROUTES": "types", "Citation": "types", "Decision": "types", "DispatchContext": "types",
    "PaperRef": "types", "CommandCatalog": "catalog", "CommandInfo": "catalog", "from_commands_module": "catalog",
    "from_registry": "catalog", "Dialogue": "dialogue", "Turn": "dialogue", "Dispatcher": "dispatcher",
}
__all__ = sorted(_EXPORTS)


def __getattr__(name: str):
    if name not in _EXPORTS:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    import importlib

    return getattr(importlib.import_module(f"{__name__}.{_EXPORTS[name]}"), name)
