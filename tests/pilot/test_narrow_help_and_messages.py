"""At 80x24 nothing a user must read is cut: F1 help shows each command with what it does and, when it is
not available now, why; a long message under the command line and a long status-bar activity wrap.
No model is loaded."""

import pytest

from paperdesk.tui.app import PaperDeskApp
from paperdesk.tui.screens.help import HelpScreen
from settings_for import NO_MODEL, settings_for
from tui_helpers import rendered, screen_text, settle, type_commands

pytestmark = pytest.mark.slow


def app_on(home, api_url):
    return PaperDeskApp(settings_for(home, api_url, **NO_MODEL), warm_up=False, cursor_blink=False)


def flat(text: str) -> str:
    return " ".join(text.split())


async def test_help_at_80_columns_shows_every_description_and_why_a_command_is_unavailable(tmp_path, arxiv):
    app = app_on(tmp_path / "home", arxiv.api_url)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        rows = app.desk.workflow.availability()
        await pilot.press("f1")
        await settle(pilot, until=lambda: isinstance(app.screen, HelpScreen))
        text = flat(rendered(app.screen.query_one("#help-commands")))
        for row in rows:
            assert flat(f"{row.usage} {row.summary}") in text
            if not row.enabled:
                assert flat(f"not now: {row.reason.split(': ', 1)[-1]}") in text
        first = rows[0]
        assert first.summary in screen_text(app)  # on screen, under its command, not cut off to the right


async def test_a_long_message_and_a_long_activity_wrap_instead_of_being_cut(tmp_path, arxiv):
    app = app_on(tmp_path / "home", arxiv.api_url)
    async with app.run_test(size=(80, 24)) as pilot:
        await type_commands(pilot, "improve make it shorter")
        message = str(app.main.query_one("#command-message").render())
        assert len(message) > 80 and message.startswith("refused: improve")
        activity = "Results: loop across sentences: 'the participants were asked to'; writing it again"
        app.status_bar.set_activity(activity)
        await pilot.pause(0.2)
        screen = flat(screen_text(app))
        assert flat(message) in screen
        assert f"{activity} │ none │ model: no-model-in-this-test" in screen
        app.status_bar.set_activity("ready")  # a short activity keeps the bar to one line
        await pilot.pause(0.2)
        assert app.status_bar.size.height == 1
