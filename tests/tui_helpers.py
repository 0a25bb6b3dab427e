"""Helpers for Pilot and snapshot tests of the workbench."""

from __future__ import annotations

import time


async def settle(pilot, until=None, timeout: float = 300.0) -> None:
    """Wait until the Desk is open and no command runs (or until `until()` holds), then drain messages.

    Polled every 50 ms between turns of the event loop, each poll after every message sent meanwhile was
    handled (`app_quiet`); the screen is brought up to date once, at the end (`pilot.pause`). `timeout`
    only guards against a hang: a model step on a slow 2-core CPU, under the suite's load, takes minutes."""
    import asyncio

    app = pilot.app
    deadline = time.monotonic() + timeout

    def idle() -> bool:
        return (app.desk is not None and not app.busy and not any(w.is_running for w in app.workers)
                and not getattr(app, "holding_key", False))

    async def pause(seconds: float) -> None:
        await asyncio.sleep(seconds)
        await app_quiet(pilot)

    await app_quiet(pilot)  # a key's message (Input.Submitted ...) and what it posts reach their handlers first
    await pause(0.05)
    while True:
        done = until() if until is not None else idle()
        if done and until is None:  # idle twice in a row: a message a released pane key posted is handled
            await pause(0.1)
            done = idle()
        if done:
            await pilot.pause(0.05)
            return
        if time.monotonic() > deadline:
            raise AssertionError(f"the app did not settle in time: {_where(app)}")
        await pause(0.05)


def _where(app) -> str:
    """What the app shows and runs, for a test that timed out waiting on it."""
    workers = [f"{w.name or w.group}:{w.state.name}{' ' + repr(w.error) if w.error else ''}" for w in app.workers]
    try:
        understood = str(app.main.query_one("#understood").render())
    except Exception:  # noqa: BLE001 - a screen without the line
        understood = "?"
    desk = getattr(app, "desk", None)
    return (f"screen {type(app.screen).__name__}, focused {app.focused!r}, busy {getattr(app, 'busy', '?')}, "
            f"state {getattr(desk, 'state', '?')}, understood {understood!r}, workers {workers}")


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


def screen_text(app) -> str:
    """The screen as plain text lines (from the app's own screenshot), for asserting what a user can read."""
    import html
    import re
    from collections import defaultdict

    svg = app.export_screenshot()
    rows: dict[float, list[tuple[float, str]]] = defaultdict(list)
    for m in re.finditer(r'<text[^>]*x="([\d.]+)"[^>]*y="([\d.]+)"[^>]*>([^<]*)</text>', svg):
        rows[float(m.group(2))].append((float(m.group(1)), html.unescape(m.group(3)).replace("\xa0", " ")))
    lines = []
    for y in sorted(rows):
        line = ""
        for x, text in sorted(rows[y]):
            line = line.ljust(int(round(x / 12.2))) + text  # the screenshot's cells are 12.2 units wide
        lines.append(line.rstrip())
    return "\n".join(lines)


def rendered(widget, width: int | None = None) -> str:
    """A Static's whole content as plain text at the widget's width (also what is scrolled out of view)."""
    import io

    from rich.console import Console

    console = Console(file=io.StringIO(), width=width or widget.content_size.width, color_system=None)
    console.print(widget.content)
    return console.file.getvalue()


# -- snapshot set-up: fixed settings, the app over them, typed lines, one summary text -----------------------

SNAPSHOT_MODEL = "/models/snapshot-model.gguf"  # the status bar names the model, so it is fixed; none is loaded

SUMMARY = """# Beyond Summarization: Designing AI Support for Real-World Expository Writing Tasks

## Problem
Expository writing, such as literature reviews, summarizes sources and adds new knowledge [p. 1].

## Method
The authors characterize expository writing and sketch three components of AI support [p. 2].

## Results
They argue for support in reading, synthesis and composition rather than generating whole texts.

## Limitations
It is a position paper: the design is sketched, not built or evaluated.
"""


def snapshot_settings(home, api_url):
    """Settings for a snapshot: the test library at `home`, the loopback arXiv, the fixed model name."""
    from settings_for import settings_for

    return settings_for(home, api_url, PAPERDESK_LLM_MODEL_PATH=SNAPSHOT_MODEL)


def snapshot_app(home, api_url):
    """The workbench over `home` with snapshot settings: no model warm-up, no cursor blink."""
    from paperdesk.tui.app import PaperDeskApp

    return PaperDeskApp(snapshot_settings(home, api_url), warm_up=False, cursor_blink=False, live_status=False)


def typed(*lines: str):
    """A snapshot's run_before that types each command line and waits for it to finish."""
    async def run(pilot):
        await type_commands(pilot, *lines)
    return run


def hold_finds(desk, arxiv) -> None:
    """Make the desk's next arXiv search wait on Retry-After until it is stopped: work that is running.

    The loopback arXiv answers 503 with a minute's Retry-After as often as the client retries (the most
    `arxiv.num_retries` allows), so the search runs about twenty minutes, not a fixed short time that a
    loaded machine's slow steps could outrun."""
    desk.arxiv.num_retries = 20
    arxiv.fail_api(desk.arxiv.num_retries + 1, 503, retry_after=60)


async def start_waiting_find(pilot, arxiv) -> None:
    """Run a `find` that waits on the loopback arXiv's Retry-After until it is stopped: work that is running."""
    app = pilot.app
    await settle(pilot)
    hold_finds(app.desk, arxiv)
    await pilot.press(*"find expository writing", "enter")
    await settle(pilot, until=lambda: app.busy and app.desk.busy)


async def pane_key(pilot, *keys: str) -> None:
    """Press keys one by one, each alone: a pane's letter key acts once no other letter follows it in time."""
    for key in keys:
        await pilot.press(key)
        deadline = time.monotonic() + 5
        while getattr(pilot.app, "holding_key", False) and time.monotonic() < deadline:
            await pilot.pause(0.05)
        await pilot.pause(0.05)


# -- typed characters: each handled before the next, without Textual's wait for the CPU to go quiet ---------

async def app_quiet(pilot, timeout: float = 30.0) -> None:
    """Return once no widget of the app's current screen (nor the app) has had a message queued, nor a callback
    waiting to run after one, for two turns of the event loop: what a key posted, and what that posted, has been
    taken up (a handler that awaits across turns may still be running: `settle` waits for what runs). Unlike
    Textual's `wait_for_idle`, which waits for the process's CPU time to stop advancing (up to a second per call
    while a model thread generates), it ends as soon as that holds; and it is cheap: it only looks at the queues
    between turns (`Pilot._wait_for_screen` would post a callback to every widget and wake each one)."""
    import asyncio

    app = pilot.app
    deadline = time.monotonic() + timeout
    quiet_turns = turns = 0
    while quiet_turns < 2 and time.monotonic() < deadline:
        await asyncio.sleep(0 if turns < 50 else 0.005)  # a long handler is waited for without spinning
        turns += 1
        try:
            pumps = [app, *app.screen.walk_children(with_self=True)]
        except Exception:  # no screen (the app is closing)
            return
        busy = any(not p._message_queue.empty() or p._next_callbacks for p in pumps)
        quiet_turns = 0 if busy else quiet_turns + 1


IDLE_WAIT_CAP = 0.2  # seconds: Textual waits up to 1 s, twice per key, for the CPU to go quiet


def install_fast_typing() -> None:
    """Pilot.press without the needless waits, keys still sent one at a time, each handled before the next.

    Textual's own press sends a key, then waits twice for the process's CPU time to stop advancing, up to 1 s
    each: 40 ms a key at the least, and 2 s for an Enter that starts work on a thread (a model, an embedding),
    where the CPU never goes quiet. Here a printable character followed by another key in the same call is
    sent and waited for with `app_quiet` (well under a millisecond of CPU); every other key (Enter, Esc, F-keys,
    ctrl+…, arrows, the last key of a call) is sent as Textual sends it and waited for as Textual waits, the
    waits capped at IDLE_WAIT_CAP; at the end of each call, `app_quiet`. Whatever a key started on a thread
    is waited for by `settle`, as before."""
    import unicodedata

    from textual import events
    from textual._wait import wait_for_idle
    from textual.app import _character_to_key, _get_unicode_name_from_key
    from textual.keys import REPLACED_KEYS
    from textual.pilot import Pilot

    if getattr(Pilot.press, "fast_typing", False):
        return
    original = Pilot.press

    def key_event(app, key: str):
        """The Key event Textual's own press makes for `key` (Textual 8: App._press_keys)."""
        if len(key) == 1 and not key.isalnum():
            key = _character_to_key(key)
        try:
            char = unicodedata.lookup(_get_unicode_name_from_key(REPLACED_KEYS.get(key, key)))
        except KeyError:
            char = key if len(key) == 1 else None
        event = events.Key(key, char)
        event.set_sender(app)
        return event

    async def press(self, *keys: str) -> None:
        if any(key.startswith("wait:") for key in keys):
            await original(self, *keys)
            return
        app = self.app
        for i, key in enumerate(keys):
            if len(key) == 1 and key.isprintable() and i < len(keys) - 1:
                app.post_message(key_event(app, key))
                await app_quiet(self)
                continue
            app._driver.send_message(key_event(app, key))
            await wait_for_idle(0, IDLE_WAIT_CAP)
            await app._animator.wait_until_complete()
            await wait_for_idle(0, IDLE_WAIT_CAP)
        if keys:
            await app_quiet(self)

    press.fast_typing = True
    Pilot.press = press
