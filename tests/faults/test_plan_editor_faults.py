"""`plan edit` with an editor that deletes its file (or the whole temp folder): the shell says so,
keeps the plan and goes on. (The writer is FakeLLM: this is the shell's orchestration, not the model.)"""

from __future__ import annotations

import io
import sys

import pytest

from fake_llm import FakeLLM
from library_homes import copy_home, indexed_home
from paperdesk.core.desk.desk import Desk
from paperdesk.core.research import Backends
from paperdesk.shell import run_shell
from settings_for import settings_for

pytestmark = pytest.mark.slow  # the real embedding model indexes the fixture paper

EDITORS = {
    "deletes the file": "import os, sys\nos.remove(sys.argv[1])\n",
    "deletes the folder": "import os, shutil, sys\nshutil.rmtree(os.path.dirname(sys.argv[1]))\n",
    "leaves a folder": "import os, sys\nos.remove(sys.argv[1])\nos.mkdir(sys.argv[1])\n",
}


@pytest.fixture(scope="module")
def base_home(tmp_path_factory, embedder, citesee_pdf):
    return indexed_home(tmp_path_factory, embedder, citesee_pdf, "plan-editor-base")


@pytest.mark.parametrize("behaviour", sorted(EDITORS))
def test_an_editor_that_removes_the_plan_file_keeps_the_plan(base_home, tmp_path, embedder, monkeypatch, behaviour):
    desk = Desk(settings_for(copy_home(base_home, tmp_path)), backend=FakeLLM(), embedder=embedder)
    desk.research_backends = Backends(desk.backend, None)
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
