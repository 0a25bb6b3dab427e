"""Themes from `themes/*.toml` (the project's folder and the data dir's), registered by name.

A theme file holds the fields of `textual.theme.Theme` (primary, background,
dark, variables ...); the file name without `.toml` is its name. An unknown
or broken theme falls back to the default with a notice.
"""

from __future__ import annotations

import tomllib
from pathlib import Path

from textual.theme import Theme

DEFAULT_THEME = "paperdesk-dark"
PROJECT_THEMES = Path(__file__).resolve().parents[2] / "themes"
_FIELDS = {"primary", "secondary", "warning", "error", "success", "accent", "foreground", "background", "surface",
           "panel", "boost", "dark", "luminosity_spread", "text_alpha", "variables"}


def theme_dirs(home: Path) -> list[Path]:
    return [PROJECT_THEMES, home / "themes"]


def load_themes(home: Path) -> tuple[list[Theme], list[str]]:
    """Every readable theme file, and a notice for each one that could not be used."""
    themes: dict[str, Theme] = {}
    problems: list[str] = []
    for directory in theme_dirs(home):
        for path in sorted(directory.glob("*.toml")) if directory.is_dir() else []:
            try:
                data = tomllib.loads(path.read_text(encoding="utf-8"))
                unknown = set(data) - _FIELDS
                if unknown:
                    raise ValueError(f"unknown keys {sorted(unknown)}")
                themes[path.stem] = Theme(name=path.stem, **data)
            except (OSError, ValueError, TypeError, tomllib.TOMLDecodeError) as exc:
                problems.append(f"theme file {path} is unusable ({exc}); fix or remove it")
    return list(themes.values()), problems
