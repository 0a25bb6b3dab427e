"""Measured generation speed per model file, for `paperdesk models`: from `bench llm`, else the crash probe.

Figures are kept per llama.cpp build and model file (the probe's build key), so a
new build or a changed file shows "not measured" instead of an old figure.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import platformdirs

from paperdesk.core.atomic_file import write_bytes


def _file() -> Path:
    return Path(platformdirs.user_cache_dir("paperdesk")) / "speeds.json"


def _load() -> dict[str, Any]:
    try:
        data = json.loads(_file().read_text(encoding="utf-8"))
        return data if isinstance(data, dict) else {}
    except (OSError, ValueError):
        return {}


def record(model_path: Path, figures: dict[str, Any]) -> None:
    """Keep `figures` (prompt_tps, decode_tps, ...) from a benchmark of this model file."""
    from paperdesk.core.llm.probe import build_key

    data = _load()
    data[build_key(model_path)] = {"model": str(model_path), **figures}
    path = _file()
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        write_bytes(path, json.dumps(data, indent=1).encode("utf-8"), path.with_name(f"{path.name}.{os.getpid()}.tmp"),
                    exclusive=False)
    except OSError:
        pass  # an unwritable cache only means "not measured" later


def measured(model_path: Path) -> dict[str, Any] | None:
    """{"decode_tps", "prompt_tps"?, "source"} when known for this build and file; else None."""
    from paperdesk.core.llm.probe import build_key, cached_verdict

    if not model_path.is_file():
        return None
    found = _load().get(build_key(model_path))
    if isinstance(found, dict) and found.get("decode_tps"):
        return {**{k: v for k, v in found.items() if k != "model"}, "source": found.get("source", "bench llm")}
    verdict = cached_verdict(model_path)
    if verdict is not None and verdict.status == "ok" and verdict.seconds > 0:
        return {"decode_tps": round(verdict.tokens_per_s, 1), "source": f"crash probe, {verdict.tokens} tokens "
                                                                          "with the prompt"}
    return None


def describe(figures: dict[str, Any] | None) -> str:
    if not figures:
        return "not measured"
    text = f"{figures['decode_tps']:.1f} tok/s"
    if figures.get("prompt_tps"):
        text += f", prompt {figures['prompt_tps']:.0f} tok/s"
    return f"{text} ({figures['source']})"
