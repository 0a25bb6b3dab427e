"""`paperdesk config`: where the settings come from; `--keys` lists every setting."""

from __future__ import annotations

import argparse
from typing import Any

from paperdesk.cli_common import print_json
from paperdesk.core.config import KEYS, Settings, config_path
from paperdesk.core.text.redact import redact_text

_SECRET = {key.name for key in KEYS if key.secret}


def _shown(name: str, value: Any) -> Any:
    """A value as shown: a secret as (set), a URL without its credentials or secret query parameters."""
    if name in _SECRET:
        return "(set)" if value else ""
    return redact_text(value) if isinstance(value, str) else value


def key_rows(settings: Settings) -> list[dict[str, Any]]:
    """Every setting: name, type, default, current value (secrets hidden), where the value came from, help."""
    rows = []
    for key in KEYS:
        kind = key.kind.__name__ + (f" ({', '.join(key.choices)})" if key.choices else "")
        rows.append({"key": key.name, "type": kind, "default": _shown(key.name, key.default),
                     "value": _shown(key.name, settings[key.name]), "source": settings.sources.get(key.name, "default"),
                     "env": key.env, "help": key.hint})
    return rows


def cmd_config(args: argparse.Namespace, settings: Settings) -> int:
    path = config_path()
    rows = key_rows(settings)
    if not args.keys:
        rows = [r for r in rows if r["source"] != "default"]
    if args.json:
        print_json({"config_file": str(path), "exists": path.exists(), "keys": rows})
        return 0
    print(f"config file: {path} ({'found' if path.exists() else 'absent: every key has its default'})")
    if not rows:
        print("no setting differs from its default; paperdesk config --keys lists them all")
        return 0
    width = max(len(r["key"]) for r in rows) + 2
    for r in rows:
        print(f"{r['key']:<{width}}{r['type']:<10} default {r['default']!r:<12} value {r['value']!r}  ({r['source']})")
        if args.keys and r["help"]:
            print(f"{'':<{width}}{r['help']}; env {r['env']}")
    return 0
