"""Themes in the workbench: chosen at start from the settings, offered in the palette as "Theme: <name>",
and kept: a theme picked in the palette (these entries or Textual's own theme list) is saved in the config
file the settings came from, so the next start opens with it.
"""

from __future__ import annotations

from functools import partial
from typing import TYPE_CHECKING, Any

from textual.command import Hit
from textual.theme import Theme

from paperdesk.tui.themes import DEFAULT_THEME, load_themes

if TYPE_CHECKING:
    from paperdesk.tui.app import PaperDeskApp


def choose_theme(app: "PaperDeskApp") -> list[str]:
    """Register the theme files and set the theme the settings name; returns notices for what could not be used."""
    themes, problems = load_themes(app.settings.home)
    for theme in themes:
        app.register_theme(theme)
    wanted = app.settings["theme"]
    if wanted in app.available_themes:
        app.theme = wanted
    else:
        fallback = DEFAULT_THEME if DEFAULT_THEME in app.available_themes else "textual-dark"
        app.theme = fallback
        # every name the palette offers works here: paperdesk's and Textual's own
        problems.append(f"unknown theme {wanted!r}; using {fallback} (themes: "
                        f"{', '.join(sorted(app.available_themes))})")
    return problems


class ThemeKeeper:
    """Saves the theme whenever the user changes it (the one chosen at start is not a change)."""

    def __init__(self, app: "PaperDeskApp") -> None:
        self.app = app
        self.current = app.theme
        app.theme_changed_signal.subscribe(app, self.changed)

    def changed(self, theme: Theme) -> None:
        if theme.name == self.current:
            return
        self.current = theme.name
        from paperdesk.config_save import save_setting
        from paperdesk.core.errors import PaperdeskError

        settings = self.app.settings
        try:
            path = save_setting(settings, "theme", theme.name)
        except PaperdeskError as exc:
            self.app.command_line.say(f"theme {theme.name}, for this session only: {exc}", "error")
            return
        source = settings.sources.get("theme", "default")
        wins = "" if source in ("default", str(path)) else f"; {source} still chooses the theme at start"
        self.app.command_line.say(f"theme {theme.name}: kept for the next start in {path}{wins}")


def theme_hits(app: Any, matcher: Any) -> list[Hit]:
    """"Theme: <name>" for every theme the query matches (by name or by what it does), straight from the
    palette's search (no submenu); choosing one keeps it for the next start (ThemeKeeper)."""
    from paperdesk.tui.palette_match import described_match

    hits = []
    for name in sorted(app.available_themes):
        label = f"Theme: {name}"
        current = " (now)" if name == app.theme else ""
        help_text = f"use the {name} theme{current}; it is kept for the next start"
        score = described_match(matcher, label, help_text)
        if score > 0:
            hits.append(Hit(score, matcher.highlight(label), partial(setattr, app, "theme", name), help=help_text))
    return hits
