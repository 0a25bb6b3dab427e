"""Themes: the palette lists them directly ("Theme: <name>"), and the one chosen is kept after a restart,
in the config file the settings came from (its other lines stay as they were). No model is loaded."""

import tomllib

import pytest

from paperdesk.tui.app import PaperDeskApp
from settings_for import NO_MODEL, settings_for
from tui_helpers import settle

pytestmark = pytest.mark.slow


def app_on(home, api_url):
    return PaperDeskApp(settings_for(home, api_url, **NO_MODEL), warm_up=False, cursor_blink=False)


async def pick_in_palette(pilot, typed: str) -> list[str]:
    """Open the palette, type `typed`, return the offered prompts, and run the first one."""
    await pilot.press("ctrl+p")
    await pilot.pause(0.3)
    await pilot.press(*typed)
    await pilot.pause(0.6)
    options = pilot.app.screen.query_one("CommandList")
    offered = [str(options.get_option_at_index(i).prompt).splitlines()[0] for i in range(options.option_count)]
    await pilot.press("down", "enter")
    await settle(pilot)
    return offered


async def test_a_theme_picked_in_the_palette_is_listed_directly_and_kept_after_a_restart(tmp_path, arxiv):
    home = tmp_path / "home"
    home.mkdir()
    config = home / "absent.toml"  # the file settings_for reads (absent: every key has its default)
    config.write_text("# my settings\n[keymap]\nsave = \"ctrl+w\"\n")
    app = app_on(home, arxiv.api_url)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        assert app.theme == "paperdesk-dark"
        offered = await pick_in_palette(pilot, "theme paperdesk-light")
        assert offered[0] == "Theme: paperdesk-light"  # a theme is one entry away, no submenu
        assert app.theme == "paperdesk-light"
        assert f"kept for the next start in {config}" in str(app.main.query_one("#command-message").render())
    saved = tomllib.loads(config.read_text())
    assert saved == {"theme": "paperdesk-light", "keymap": {"save": "ctrl+w"}}
    assert config.read_text().splitlines()[1:] == ["# my settings", "[keymap]", "save = \"ctrl+w\""]

    again = app_on(home, arxiv.api_url)
    async with again.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        assert again.theme == "paperdesk-light"
        assert again.keymap == {"save": "ctrl+w"}
        await pick_in_palette(pilot, "theme textual-light")  # chosen again: the line is replaced, not added
        assert again.theme == "textual-light"
    assert config.read_text().count("theme =") == 1
    assert tomllib.loads(config.read_text())["theme"] == "textual-light"


async def test_the_palette_finds_commands_by_what_they_do(tmp_path, arxiv):
    home = tmp_path / "home"
    home.mkdir()
    app = app_on(home, arxiv.api_url)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        await pilot.press("ctrl+p")
        await pilot.pause(0.3)
        await pilot.press(*"change the current theme")
        await pilot.pause(0.6)
        options = pilot.app.screen.query_one("CommandList")
        offered = [str(options.get_option_at_index(i).prompt).splitlines()[0] for i in range(options.option_count)]
        assert "Theme" in offered[:3], offered  # Textual's own "Change the current theme" command
        await pilot.press("escape")
