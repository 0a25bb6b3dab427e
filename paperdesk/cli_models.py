"""`paperdesk models` (the catalogue, what is installed, the model of each role) and `models install NAME`."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from paperdesk.cli_common import UsageError, print_json
from paperdesk.core.config import Settings
from paperdesk.core.errors import PaperdeskError


def add_parser(sub: Any, verb: Any) -> None:
    p = verb("models", "the model catalogue, what is installed, the model of each role; `models install NAME`")
    p.add_argument("action", nargs="?", choices=("install",), help="install: assemble a catalogue model")
    p.add_argument("name", nargs="?", help="catalogue name, e.g. qwen2.5-coder-1.5b; default: the default writer")


def _mb(size: int | None) -> str:
    return "-" if size is None else f"{size / 1e6:,.0f} MB"


def _role(settings: Settings, role: str) -> dict[str, Any] | None:
    from paperdesk.core.llm import models

    try:
        choice = models.resolve_writer(settings, assemble=False) if role == "writer" \
            else models.resolve_structure(settings)
    except PaperdeskError as exc:
        return {"error": str(exc)}
    if choice is None:
        return None
    size = choice.path.stat().st_size if choice.path.is_file() else None
    return {"name": choice.name, "path": str(choice.path), "source": choice.source, "size": size,
            "notice": choice.notice}


def _reader(settings: Settings) -> dict[str, Any]:
    """The sentence reader answers use (answer.reader), or why search's embedder does the reading."""
    from paperdesk.core.llm import catalogue
    from paperdesk.core.search.reader import reader_dir

    folder = reader_dir(settings)
    configured = settings["answer.reader"].strip()
    if folder is not None:
        return {"name": configured if configured in catalogue.BY_NAME else folder.name, "path": str(folder),
                "source": "answer.reader"}
    if not configured:
        return {"name": "search's embedder", "source": "answer.reader is empty"}
    how = f"paperdesk models install {configured}" if configured in catalogue.BY_NAME else "fix answer.reader"
    return {"error": f"{configured} is not installed, so answers read with search's embedder; run: {how}"}


def report(settings: Settings) -> dict[str, Any]:
    from paperdesk.core.llm import catalogue, models, speeds
    from paperdesk.core.llm.install_leftovers import describe, leftovers

    rows = []
    for model in catalogue.CATALOGUE:
        path = models.catalogue_path(model, settings, assemble=False)
        there = path is not None and (path.is_dir() if model.is_folder else path.is_file())
        rows.append({**model.to_json(), "installed": there, "path": str(path) if there else None,
                     "speed": speeds.measured(path) if there and path and not model.is_folder else None})
    remote = settings["llm.backend"] == "remote"
    roles = {"writer": _role(settings, "writer"), "structure": _role(settings, "structure")}
    if remote:
        roles = {r: {"name": models.describe_model(settings), "source": "llm.backend = remote"} for r in roles}
    roles["reader"] = _reader(settings)
    known = {r["path"] for r in rows if r["path"]}
    other = [{"path": str(m.path), "source": m.source, "size": m.path.stat().st_size,
              "speed": speeds.measured(m.path)} for m in models.found_models(settings) if str(m.path) not in known]
    out = {"models_dir": str(catalogue.models_dir(settings)), "default_writer": catalogue.DEFAULT_WRITER,
           "catalogue": rows, "other": other, "roles": roles}
    found = leftovers(catalogue.models_dir(settings))
    if found:
        out["leftovers"] = describe(found)
    writer = roles["writer"]
    if writer and "path" in writer and not remote:
        out["active"] = {"path": writer["path"], "source": writer["source"], "size": writer["size"]}
    return out


def _print_table(data: dict[str, Any]) -> None:
    from paperdesk.core.llm import speeds

    head = ("NAME", "FAMILY", "FIT FOR", "SIZE", "INSTALLED", "SPEED")
    lines = [head]
    for r in data["catalogue"]:
        lines.append((r["name"], r["family"], "+".join(r["roles"]), _mb(r["size"]),
                      r["path"] or "no", speeds.describe(r["speed"]) if r["installed"] and not r["unpacked"] else "-"))
    for r in data["other"]:
        lines.append((Path(r["path"]).stem, "-", "-", _mb(r["size"]), r["path"], speeds.describe(r["speed"])))
    widths = [max(len(str(line[i])) for line in lines) for i in range(len(head) - 1)]
    for line in lines:
        print("  ".join(str(c).ljust(w) for c, w in zip(line, widths)) + "  " + str(line[-1]))
    print(f"\nmodels dir: {data['models_dir']}   default writer: {data['default_writer']}")
    if data.get("leftovers"):
        print(f"  {data['leftovers']}; the next `models install` removes them")
    for role, found in data["roles"].items():
        if found is None:
            print(f"{role:>9}: none installed; the writer does it")
        elif "error" in found:
            print(f"{role:>9}: {found['error']}")
        else:
            where = f"  {found['path']}" if found.get("path") else ""
            print(f"{role:>9}: {found['name']}{where}  (from {found['source']})")
            if found.get("notice"):
                print(f"           {found['notice']}")


class _Bar:
    """Progress on stderr: a redrawn bar on a terminal, a line per package or per tenth otherwise."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.tty = sys.stderr.isatty()
        self.last = (None, -1)

    def __call__(self, step: Any) -> None:
        if step.stage == "download":
            text = f"{self.name}: downloading package {step.done}/{step.total}"
            fraction = step.done / step.total if step.total else 1.0
        else:
            fraction = step.done / step.total if step.total else 1.0
            text = f"{self.name}: assembling {step.done / 1e6:,.0f}/{step.total / 1e6:,.0f} MB"
        if self.tty:
            filled = int(fraction * 30)
            sys.stderr.write(f"\r[{'#' * filled}{'.' * (30 - filled)}] {fraction:4.0%} {text}\x1b[K")
            sys.stderr.flush()
            return
        tenth = int(fraction * 10) if step.stage == "assemble" else step.done
        if (step.stage, tenth) != self.last:
            self.last = (step.stage, tenth)
            print(f"{text} ({fraction:.0%})", file=sys.stderr, flush=True)

    def done(self) -> None:
        if self.tty:
            sys.stderr.write("\r\x1b[K")
            sys.stderr.flush()


def _prepare_reader(model: Any, folder: Path, quiet: bool) -> str:
    """A reader is exported to int8 ONNX at install, once, so no answer (and no app start) waits for it.
    Returns what happened: "ready" (done before), "exported", or the failure (answers then read with MiniLM)."""
    if not model.is_folder:
        return ""
    from paperdesk.core.search import onnx_export

    if onnx_export.is_exported(folder):
        return "ready"
    if not quiet:
        print(f"{model.name}: exporting to int8 ONNX (once, about half a minute) ...", file=sys.stderr, flush=True)
    try:
        onnx_export.export_int8(folder)
    except Exception as exc:  # noqa: BLE001 - the model stays installed; answers read with search's embedder
        reason = onnx_export.failure_reason(exc)
        if not quiet:
            print(f"{model.name}: the ONNX export failed ({reason}); answers read with search's embedder",
                  file=sys.stderr)
        return f"export failed: {reason}"
    return "exported"


def cmd_models(args: argparse.Namespace, settings: Settings) -> int:
    if args.action != "install":
        if args.name:
            raise UsageError(f"models: unexpected {args.name!r}; to install a model: paperdesk models install NAME")
        data = report(settings)
        if args.json:
            print_json(data)
        else:
            _print_table(data)
        return 0
    from paperdesk.core.llm import catalogue
    from paperdesk.core.llm.install import install

    if not args.name:
        raise UsageError(f"models install: name a model ({', '.join(catalogue.BY_NAME)})")
    if settings["offline"]:
        raise PaperdeskError("offline: installing a model downloads it; drop --offline")
    model = catalogue.get(catalogue.DEFAULT_WRITER if args.name == "default" else args.name)
    bar = _Bar(model.name)
    try:
        result = install(model, settings, progress=None if args.json else bar)
    finally:
        bar.done()
    prepared = _prepare_reader(model, result.path, quiet=args.json)
    if args.json:
        print_json({"name": model.name, "path": str(result.path), "already": result.already, "prepared": prepared,
                    "size": model.size, "sha256": model.sha256, "seconds": round(result.seconds, 1)})
    elif result.already:
        print(f"{model.name} is already installed and verified: {result.path}")
    else:
        print(f"installed {model.name} ({_mb(model.size)}, sha256 verified) in {result.seconds:.0f} s: {result.path}")
    return 0
