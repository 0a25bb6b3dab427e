"""Helpers for Pilot and snapshot tests of the workbench."""

from __future__ import annotations

import time


async def settle(pilot, until=None, timeout: float = 120.0) -> None:
    """Wait until the Desk is open and no command runs (or until `until()` holds), then drain messages."""
    app = pilot.app
    deadline = time.monotonic() + timeout
    await pilot.pause(0.2)  # let a key's message (Input.Submitted ...) reach its handler first
    while True:
        await pilot.pause(0.05)
        idle = app.desk is not None and not app.busy and not any(w.is_running for w in app.workers)
        done = until() if until is not None else idle
        if done:
            await pilot.pause(0.05)
            return
        if time.monotonic() > deadline:
            raise AssertionError("the app did not settle in time")
        await pilot.pause(0.1)


async def type_commands(pilot, *lines: str) -> None:
    """Type each command line into the command line, press Enter, and wait for it to finish."""
    await settle(pilot)
    for line in lines:
        await pilot.press(*line, "enter")
        await settle(pilot)


def desk_events(messages, kind):
    """The Desk events of one type among the messages a Pilot test recorded."""
    from paperdesk.tui.messages import DeskEvent

    return [m.event for m in messages if isinstance(m, DeskEvent) and isinstance(m.event, kind)]



def type_at_full_speed(pilot, text: str, *then: str) -> None:
    """Type `text`, then the named keys `then` ("enter"), the way a terminal delivers a fast typist or a paste:
    all keys queued at once, none handled before the next arrives. (`pilot.press` waits for the app to go idle
    after every key, so with it a key never races a focus change.)"""
    from textual import events
    from textual.keys import _character_to_key

    app = pilot.app
    for char in text:
        app.post_message(events.Key(char if char.isalnum() else _character_to_key(char), char))
    for key in then:
        app.post_message(events.Key(key, "\r" if key == "enter" else None))
