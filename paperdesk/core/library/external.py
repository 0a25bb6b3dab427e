"""Opening a paper's PDF in the system's viewer, at a page where the viewer can be told one.

`reader.pdf_viewer` (a command with {file} and {page}) wins. Otherwise the
desktop's default PDF application (xdg-mime) is used at the page when it is a
viewer whose page option is known (zathura, evince, okular, mupdf, ...), else
xdg-open / open at the first page, with a message saying how to get pages.
The viewer runs detached: closing paperdesk leaves it open.
"""

from __future__ import annotations

import shlex
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from paperdesk.core.errors import PaperdeskError

# viewer binary -> its arguments for opening {file} at {page}
PAGE_ARGS: dict[str, str] = {
    "zathura": "--page={page} {file}",
    "evince": "--page-index={page} {file}",
    "atril": "--page-index={page} {file}",
    "xreader": "--page-index={page} {file}",
    "okular": "--page {page} {file}",
    "qpdfview": "{file}#{page}",
    "mupdf": "{file} {page}",
    "sioyek": "--page {page} {file}",
}


class ViewerError(PaperdeskError):
    """No PDF viewer could be started."""


@dataclass(frozen=True)
class ViewerPlan:
    argv: list[str]
    at_page: bool  # the viewer was told the page


def plan_viewer(pdf: Path, page: int, template: str = "", platform: str = sys.platform,
                which: Callable[[str], str | None] = shutil.which,
                default_app: Callable[[], str] | None = None) -> ViewerPlan:
    """The command that opens `pdf` at `page`; ViewerError says what to install or set when there is none."""
    if template.strip():
        try:
            args = shlex.split(template)
        except ValueError as exc:  # an unbalanced quote
            raise ViewerError(f"reader.pdf_viewer = {template!r} cannot be read as a command ({exc}): "
                              "fix its quotes in the config") from None
        at_page = any("{page}" in a for a in args)
        if not any("{file}" in a for a in args):
            args.append("{file}")
        if which(args[0]) is None:
            raise ViewerError(f"the PDF viewer {args[0]!r} (reader.pdf_viewer) is not installed or not on PATH")
        return ViewerPlan([a.replace("{file}", str(pdf)).replace("{page}", str(page)) for a in args], at_page)
    if platform == "darwin":
        if which("open") is None:
            raise ViewerError("cannot open the PDF: the macOS `open` command is missing")
        return ViewerPlan(["open", str(pdf)], False)
    desktop = (default_app or _xdg_default_pdf_app)()
    for name, pattern in PAGE_ARGS.items():
        if name in desktop.lower() and which(name):
            return ViewerPlan([name, *[a.replace("{file}", str(pdf)).replace("{page}", str(page))
                                       for a in shlex.split(pattern)]], True)
    if which("xdg-open"):
        return ViewerPlan(["xdg-open", str(pdf)], False)
    for name, pattern in PAGE_ARGS.items():  # no desktop integration: any known viewer on PATH
        if which(name):
            return ViewerPlan([name, *[a.replace("{file}", str(pdf)).replace("{page}", str(page))
                                       for a in shlex.split(pattern)]], True)
    raise ViewerError("no PDF viewer found: install xdg-utils (xdg-open) or a viewer such as zathura or evince, "
                      "or set reader.pdf_viewer = \"yourviewer --page={page} {file}\" in the config")


def _xdg_default_pdf_app() -> str:
    """The desktop file of the default PDF application ("org.pwmt.zathura.desktop"), or "" when unknown."""
    if shutil.which("xdg-mime") is None:
        return ""
    try:
        done = subprocess.run(["xdg-mime", "query", "default", "application/pdf"], capture_output=True, text=True,
                              timeout=3)
    except (OSError, subprocess.SubprocessError):
        return ""
    return done.stdout.strip()


def open_pdf(pdf_path: str | None, paper_id: str, page: int, template: str = "") -> str:
    """Start the viewer on a paper's PDF; returns what happened, for the status line."""
    if not pdf_path or not Path(pdf_path).is_file():
        raise ViewerError(f"{paper_id} has no PDF file in the library (was it moved?); `paperdesk doctor` checks")
    plan = plan_viewer(Path(pdf_path), page, template)
    try:
        subprocess.Popen(plan.argv, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                         start_new_session=True)
    except OSError as exc:
        raise ViewerError(f"cannot start {plan.argv[0]}: {exc.strerror or exc}") from None
    if plan.at_page:
        return f"opened {paper_id} in {Path(plan.argv[0]).name} at page {page}"
    hint = ("; to open at the page, set reader.pdf_viewer, e.g. \"zathura --page={page} {file}\"" if page > 1 else "")
    return f"opened {paper_id} with {Path(plan.argv[0]).name}{hint}"
