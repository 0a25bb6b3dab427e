"""`plan edit` with an editor that deletes its file (or the whole temp folder): the shell says so,
keeps the plan and goes on. (The writer is FakeLLM: this is the shell's orchestration, not the model.)"""

from __future__ import annotations

import io
import sys

import pytest

from paperdesk.shell import run_shell

pytestmark = pytest.mark.slow  # the real embedding model indexes the fixture paper

EDITORS = {
    "deletes the file": "import os, sys\nos.remove(sys.argv[1])\n",
    "deletes the folder": "import os, shutil, sys\nshutil.rmtree(os.path.dirname(sys.argv[1]))\n",
    "leaves a folder": "import os, sys\nos.remove(sys.argv[1])\nos.mkdir(sys.argv[1])\n",
}


@pytest.mark.parametrize("behaviour", sorted(EDITORS))
def test_an_editor_that_removes_the_plan_file_keeps_the_plan(citesee_desk, tmp_path, monkeypatch, behaviour):
    desk = citesee_desk()  # the rule planner: a known plan
    try:
        assert desk.run("mode plan").ok and desk.run("research how does CiteSee help readers track citations?").ok
        before = desk.session.plan
        editor = tmp_path / "editor.py"
        editor.write_text(EDITORS[behaviour])
        monkeypatch.setenv("EDITOR", f"{sys.executable} {editor}")
        monkeypatch.delenv("VISUAL", raising=False)
        out, err = io.StringIO(), io.StringIO()
        code = run_shell(desk.settings, keep_going=True, stdin=io.StringIO("plan edit\nstatus\n"), out=out, err=err,
                         desk=desk)
        assert code == 1 and "Traceback" not in err.getvalue()
        assert "plan edit: the editor" in err.getvalue() and "the plan is kept as it was" in err.getvalue()
        assert "state: " in out.getvalue()  # the shell went on
        assert desk.session.plan == before
    finally:
        desk.close()
