"""`plan edit` in the shell: the plan as TOML in $EDITOR, then validated by the Desk.

The Desk hands out the TOML (`plan edit` without text) and takes the edited
text back as `plan edit` + newline + TOML; an invalid edit is refused with the
reason and the plan stays as it was. The editor is $VISUAL, else $EDITOR, else vi.
"""

from __future__ import annotations

import os
import shlex
import subprocess
import tempfile
from pathlib import Path

from paperdesk.core.commands.parse import Command
from paperdesk.core.desk.desk import Desk
from paperdesk.core.commands.views import Outcome, PlanView


def is_plan_edit(line: str) -> bool:
    return line.split() == ["plan", "edit"]


def edit_in_editor(desk: Desk, line: str) -> Outcome:
    """Open the plan in the editor; run the edited text through the Desk (which validates it)."""
    first = desk.run(line)
    if not first.ok or not isinstance(first.view, PlanView) or not first.view.toml:
        return first
    editor = os.environ.get("VISUAL") or os.environ.get("EDITOR") or "vi"
    # ignore_cleanup_errors: an editor may delete the file or the whole folder
    with tempfile.TemporaryDirectory(prefix="paperdesk-plan-", ignore_cleanup_errors=True) as tmp:
        path = Path(tmp) / "plan.toml"
        path.write_text(first.view.toml, encoding="utf-8")
        try:
            done = subprocess.run([*shlex.split(editor), str(path)], check=False)
        except (OSError, ValueError) as exc:  # ValueError: an unbalanced quote in $EDITOR
            return Outcome(line, "error", f"plan edit: cannot start the editor {editor!r} ({exc}); set $EDITOR")
        if done.returncode != 0:
            return Outcome(line, "error", f"plan edit: the editor {editor!r} exited with {done.returncode}; "
                                          "nothing changed")
        try:
            edited = path.read_text(encoding="utf-8", errors="replace")
        except OSError as exc:
            why = "deleted it" if isinstance(exc, FileNotFoundError) else f"left it unreadable ({exc.strerror})"
            return Outcome(line, "error", f"plan edit: the editor {editor!r} {why}: {path}; the plan is kept "
                                          "as it was")
    if edited == first.view.toml:
        return Outcome(line, "ok", "plan edit: nothing changed")
    return desk.execute(Command("plan", text="edit\n" + edited, raw=line))
