"""Saving a choice made in the app (the theme picked in the palette) into the config file it was read from.

Only the one top-level line `name = value` is written: the file's other keys,
tables and comments stay as they are. A file that does not exist yet is
created with that line.

The config may hold an API key, so the write never widens who can read it: a new file is made 0600, an
existing one keeps its mode, and the bytes go through the atomic helper (temp file, fsync, rename). A
symlinked config is written where the link points, so the link stays a link.
"""

from __future__ import annotations

import json
import os
import re
import stat
import tomllib
from pathlib import Path

from paperdesk.core.atomic_file import atomic_write
from paperdesk.core.config import KEYS_BY_NAME, Settings
from paperdesk.core.errors import ConfigError

_TABLE = re.compile(r"^\s*\[")
PRIVATE_MODE = 0o600  # a config made here: only its owner reads it (it may carry api_key)


def save_setting(settings: Settings, name: str, value: str) -> Path:
    """Write `name = "value"` (a top-level string key) into the settings' config file; returns its path."""
    if name not in KEYS_BY_NAME or "." in name or KEYS_BY_NAME[name].kind is not str:
        raise ConfigError(f"{name} is not a top-level text setting")
    path = settings.file
    if path is None:
        from paperdesk.core.config import config_path

        path = config_path()
    try:
        text = path.read_text(encoding="utf-8") if path.exists() else ""
    except OSError as exc:
        raise ConfigError(f"cannot read the config file {path}: {exc.strerror or exc}") from None
    line = f"{name} = {json.dumps(value)}"  # a JSON string of plain text is a TOML basic string
    key = re.compile(rf"^\s*{re.escape(name)}\s*=")
    lines = text.splitlines()
    first_table = next((i for i, ln in enumerate(lines) if _TABLE.match(ln)), len(lines))
    at = next((i for i, ln in enumerate(lines[:first_table]) if key.match(ln)), None)
    if at is not None:
        lines[at] = line
    else:
        lines.insert(0, line)  # before any [table]: top-level keys must come first
    new = "\n".join(lines) + "\n"
    try:
        tomllib.loads(new)
    except tomllib.TOMLDecodeError as exc:  # the file was not valid TOML before: leave it alone
        raise ConfigError(f"config file {path} is not valid TOML ({exc}); {name} was not saved") from None
    target = path.resolve()  # through a symlink: the file it names is updated, the link kept
    try:
        mode = stat.S_IMODE(target.stat().st_mode)
    except FileNotFoundError:
        mode = PRIVATE_MODE
    except OSError as exc:
        raise ConfigError(f"cannot read the config file {path}: {exc.strerror or exc}") from None
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        with atomic_write(target, mode=mode) as out:
            os.fchmod(out.fileno(), mode)  # the exact mode, whatever the umask
            out.write(new.encode("utf-8"))
    except OSError as exc:
        raise ConfigError(f"cannot write the config file {path}: {exc.strerror or exc}") from None
    return path
