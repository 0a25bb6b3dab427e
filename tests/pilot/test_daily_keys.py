"""Keys and interruptions: typing goes where the user means, and looking never stops work.

No model is loaded here: the long-running command is a `find` that waits on the
loopback arXiv's Retry-After, which Esc or an interrupt cancels like any work.
"""

import pytest
from textual.widgets import Input

from conftest import PAPERS
from paperdesk.core.db.desk_store import DeskStore
from paperdesk.core.commands.session import DraftRef, Session
from paperdesk.core.commands.views import CommandFinished, PageView
from paperdesk.tui.palette import palette_entries
from paperdesk.tui.panes.reader import ReaderPane
from paperdesk.tui.screens.confirm import ConfirmScreen
from paperdesk.tui.screens.help import HelpScreen
from paperdesk.tui.screens.text import TextScreen
from tui_helpers import desk_events, hold_finds, settle, start_waiting_find, type_commands

pytestmark = pytest.mark.slow
PAPER = "2304.02623v1"


def message_text(app) -> str:
    return str(app.main.query_one("#command-message").render())


def outcomes(messages):
    return [e.outcome for e in desk_events(messages, CommandFinished)]


async def test_typing_in_the_results_pane_goes_to_the_command_line(workbench, library):
    library.add_pdf(PAPERS / f"{PAPER}.pdf")
    app = workbench(model=False)
    messages = []
    async with app.run_test(size=(120, 36), message_hook=messages.append) as pilot:
        await type_commands(pilot, "list")
        await pilot.press("f2")
        assert app.focused.id == "results-table"
        await pilot.press(*"improve quote more of the survey numbers")
        command_input = app.command_line.input
        assert app.focused is command_input
        assert command_input.value == "improve quote more of the survey numbers"  # no letter fired an action
        await pilot.pause(0.2)
        assert not [e for e in outcomes(messages) if isinstance(e.view, PageView)]  # `o` opened nothing
        await pilot.press("f2", "colon")  # `:` is the command line's own key: it focuses, it does not type
        assert app.focused is command_input and command_input.value.endswith("numbers")


async def test_a_leading_colon_is_accepted_and_ignored(workbench):
    app = workbench(model=False)
    messages = []
    async with app.run_test(size=(120, 36), message_hook=messages.append) as pilot:
        await settle(pilot)
        await pilot.press("colon", *"status")  # typed in the command line, the colon stays in the line
        assert app.command_line.input.value == ":status"
        await pilot.press("enter")
        await settle(pilot, until=lambda: isinstance(app.screen, TextScreen))
        assert outcomes(messages)[-1].status == "ok" and "state: initial" in app.screen.text
        await pilot.press("escape")


async def test_read_only_commands_answer_while_work_runs_and_never_interrupt_it(workbench, library, arxiv):
    library.add_pdf(PAPERS / f"{PAPER}.pdf")
    app = workbench(model=False)
    messages = []
    async with app.run_test(size=(120, 36), message_hook=messages.append) as pilot:
        await type_commands(pilot, "list", "open 1")
        messages.clear()
        hold_finds(app.desk, arxiv)  # the find waits until it is stopped: work that is running
        await pilot.press(*"find expository writing", "enter")
        await settle(pilot, until=lambda: app.busy and app.desk.busy)

        for line, screen in (("status", TextScreen), (":status", TextScreen), ("help", HelpScreen),
                             ("history", TextScreen)):
            await pilot.press(*line, "enter")
            await settle(pilot, until=lambda: isinstance(app.screen, screen))
            await pilot.press("escape")  # closes the screen; the find is not cancelled
            await settle(pilot, until=lambda: app.screen is app.main)
        reader = app.main.query_one(ReaderPane)
        await pilot.press("f5", "right")  # the reader's navigation goes on beside the work
        await settle(pilot, until=lambda: reader.page == 2)
        await pilot.press("colon", *"open 1 3", "enter")  # and so does open: the reader shows it alone
        await settle(pilot, until=lambda: reader.page == 3)
        assert "the running arXiv search goes on" in message_text(app)
        await pilot.press("colon", *"statsu", "enter")  # a typo: the dispatcher gets it, nothing stops
        await settle(pilot, until=lambda: app.command_line.input.value == "")
        await pilot.pause(1.0)
        finds = lambda: [o for o in outcomes(messages) if o.command.startswith("find")]  # noqa: E731
        assert app.busy and app.desk.busy and finds() == []  # the find still runs

        await pilot.press(*"list", "enter")  # needs the desk: it asks before it stops the find
        await settle(pilot, until=lambda: "this stops the running arXiv search: Enter to go on" in message_text(app))
        assert app.busy and app.command_line.input.value == "list" and finds() == []
        await pilot.press("enter")
        await settle(pilot, until=lambda: finds() and any(o.command == "list" for o in outcomes(messages))
                     and not app.busy)
        found = finds()[0]
        listed = next(o for o in outcomes(messages) if o.command == "list")
        assert found.command == "find expository writing" and found.status == "cancelled"
        assert listed.ok and app.desk.state == "select-view"
        assert ("status", "select-view", "ok") in [row[:3] for row in app.desk.store.history()]


async def test_usage_in_the_command_line_keeps_its_brackets(workbench, library):
    library.add_pdf(PAPERS / f"{PAPER}.pdf")
    app = workbench(model=False)
    async with app.run_test(size=(120, 36)) as pilot:
        await type_commands(pilot, "list")
        # a bare `open` is now resolved by the dispatcher, so the usage text is said directly:
        # the command line prints it as plain text, brackets and all (no markup eats `[page]`)
        app.command_line.say("open needs a paper (usage: open <n|id> [page])", "error")
        await pilot.pause()
        assert "(usage: open <n|id> [page])" in message_text(app), message_text(app)


def summarizing(library, revisions: int) -> str:
    """A stored session in draft-summary on a library paper with `revisions` draft revisions (no model)."""
    pid = library.add_pdf(PAPERS / f"{PAPER}.pdf").paper.id
    for n in range(revisions):
        library.store.add_revision(pid, f"# summary\n\n## Problem\nDraft {n + 1}.", "draft")
    session = Session(selected=pid, draft=DraftRef("summary", paper_id=pid))
    DeskStore(library.store).save_session(session.to_json("draft-summary"))
    return pid


async def test_undo_and_redo_are_offered_only_with_a_revision_to_go_to(workbench, library):
    pid = summarizing(library, revisions=1)
    app = workbench(model=False)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        offered = {e.line for e in palette_entries(app)}
        assert "save" in offered and "undo" not in offered and "redo" not in offered
        assert app.check_action("workflow", ("undo",)) is False
        app.desk.store.add_revision(pid, "# summary\n\n## Problem\nDraft 2.", "draft")
        assert "undo" in {e.line for e in palette_entries(app)} and app.check_action("workflow", ("undo",))
        await type_commands(pilot, "undo")
        offered = {e.line for e in palette_entries(app)}
        assert "redo" in offered and "undo" not in offered


async def test_typed_abandon_and_ctrl_b_both_ask_first(workbench, library):
    pid = summarizing(library, revisions=1)
    app = workbench(model=False)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        await pilot.press(*"abandon", "enter")
        await settle(pilot, until=lambda: isinstance(app.screen, ConfirmScreen))
        assert "the paper stays in the library" in app.screen.question
        await pilot.press("n")
        await settle(pilot)
        assert app.desk.state == "draft-summary" and "nothing discarded" in message_text(app)
        await pilot.press("ctrl+b")
        await settle(pilot, until=lambda: isinstance(app.screen, ConfirmScreen))
        await pilot.press("y")
        await settle(pilot, until=lambda: app.desk.state == "initial")
        assert app.desk.store.get_paper(pid) is not None  # it was in the library before this draft
        assert isinstance(app.focused, Input)


async def test_every_theme_the_picker_lists_works_with_theme(workbench):
    app = workbench(model=False, PAPERDESK_THEME="nord")
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        assert app.theme == "nord" and not app.theme_notices
    wrong = workbench(model=False, PAPERDESK_THEME="nord-ish")
    async with wrong.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        notice = wrong.theme_notices[0]
        assert "unknown theme 'nord-ish'" in notice and "textual-light" in notice and "paperdesk-light" in notice


async def test_esc_with_text_on_the_line_clears_it_and_only_esc_on_an_empty_line_stops_the_work(workbench, arxiv):
    app = workbench(model=False)
    messages = []
    async with app.run_test(size=(120, 36), message_hook=messages.append) as pilot:
        await start_waiting_find(pilot, arxiv)
        finds = lambda: [o for o in outcomes(messages) if o.command.startswith("find")]  # noqa: E731
        await pilot.press(*"stat", "escape")  # meant: clear what I typed
        await settle(pilot, until=lambda: app.command_line.input.value == "")
        await pilot.pause(0.5)
        assert app.busy and app.desk.busy and finds() == []  # the find goes on
        assert "Esc again stops" in message_text(app)
        await pilot.press("f2", "colon", *"abc")  # the cleared text does not come back in front of new typing
        assert app.command_line.input.value == "abc"
        await pilot.press("escape", "escape")  # clear, then stop
        await settle(pilot, until=lambda: finds() and not app.busy)
        assert finds()[0].status == "cancelled"


async def test_the_footer_shows_only_the_workflow_keys_allowed_now_and_a_refused_key_says_why(workbench, library):
    app = workbench(model=False)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        assert app.desk.state == "initial"
        shown = app.screen.active_bindings
        assert not {"ctrl+r", "ctrl+s", "ctrl+b"} & set(shown)  # nothing to improve, save or abandon yet
        assert "ctrl+q" in shown and "f1" in shown
        await pilot.press("ctrl+b")
        await settle(pilot)
        assert app.desk.state == "initial" and not app.screen_stack[1:]  # no question asked, nothing ran
        assert message_text(app).startswith("^b: abandon is not available in initial")
        await pilot.press("ctrl+s")
        assert message_text(app).startswith("^s: save is not available in initial")
        await pilot.press("ctrl+z")
        assert message_text(app).startswith("^z: nothing to undo")


async def test_quit_while_work_runs_asks_first_and_no_keeps_it_running(workbench, arxiv):
    app = workbench(model=False)
    async with app.run_test(size=(120, 36)) as pilot:
        await start_waiting_find(pilot, arxiv)
        await pilot.press("ctrl+q")
        await settle(pilot, until=lambda: isinstance(app.screen, ConfirmScreen))
        assert "still running" in app.screen.question
        await pilot.press("n")
        await pilot.pause(0.3)
        assert app.busy and app.desk.busy and not app.desk.closed  # nothing stopped
        assert "not quitting" in message_text(app)
        await pilot.press("ctrl+q")
        await settle(pilot, until=lambda: isinstance(app.screen, ConfirmScreen))
        await pilot.press("y")
        await settle(pilot, until=lambda: app.desk.closed)
    assert app.desk.closed


async def test_the_status_bar_says_what_runs_and_for_how_long(workbench, arxiv):
    import re

    app = workbench(model=False)
    async with app.run_test(size=(160, 36)) as pilot:
        await start_waiting_find(pilot, arxiv)

        def seconds() -> int | None:
            found = re.search(r"find[^·]* · (\d+) s", str(app.status_bar.render()))
            return int(found.group(1)) if found else None

        await settle(pilot, until=lambda: (seconds() or 0) >= 2)  # redrawn while it runs: the time grows
        await pilot.press("escape")
        await settle(pilot)
        assert seconds() is None  # nothing runs: no live figure


async def test_a_word_typed_in_a_pane_arrives_whole_whatever_its_first_letter(workbench, library):
    """The reader's n (next match) and o (PDF viewer), the plan's r (reject) and e (edit): typed at typing
    speed they begin a command, and their actions never run."""
    library.add_pdf(PAPERS / f"{PAPER}.pdf")
    app = workbench(model=False)
    async with app.run_test(size=(120, 36)) as pilot:
        await type_commands(pilot, "list", "open 1")
        await pilot.press("f5")
        assert app.focused.id == "reader-scroll"
        await pilot.press(*"notes reader test")
        await pilot.pause(0.5)
        assert app.command_line.input.value == "notes reader test"
        assert isinstance(app.focused, Input) and not app.holding_key
        assert isinstance(app.screen, type(app.main))  # no find box, no viewer, nothing opened over it
        app.command_line.input.value = ""
        await pilot.press("f7")
        await pilot.press(*"research --resume")
        await pilot.pause(0.5)
        assert app.command_line.input.value == "research --resume"
        assert app.screen is app.main  # the plan's TOML editor did not open
