"""Every command in every state through the shell and the real Desk: real SQLite, tantivy, embeddings, loopback arXiv.

Generation comes from FakeLLM (tests/fake_llm.py): this test is about which
command runs where and where it leads, not about what a model writes. Each
state is reached once by real commands and kept as a template data dir; each
cell copies its state's template, opens a Desk on it (which resumes the
persisted state) and runs one command line through `paperdesk shell`.
"""

import io
import shutil

import pytest

from conftest import PAPERS
from fake_llm import FakeLLM
from paperdesk.core.desk.desk import Desk
from paperdesk.shell import run_shell
from settings_for import settings_for
from paperdesk.core.research import Backends
from spec_table import ALL, SPEC_TABLE, VIEW_STATES

pytestmark = pytest.mark.slow

LINES = {
    "find": "find expository writing",
    "summarize": "summarize 1",
    "improve": "improve say more about the method",
    "notes": "notes check figure 2",
    "save": "save",
    "abandon": "abandon",
    "sem-search": "sem-search how do readers keep track of citations",
    "research": "research how do readers keep track of citations",
    "list": "list",
    "summary": "summary 1",
    "open": "open 1 2",
    "undo": "undo",
    "redo": "redo",
    "help": "help",
    "status": "status",
    "history": "history",
    "clear": "clear",
    "quit": "quit",
    "dialogue": "dialogue",
    # papers in and out; {tmp} is the test's own folder
    "export": "export bibtex --all --out {tmp}/library.bib",
    "import": "import bibtex {tmp}/refs.bib",
    "remove": "remove local-7db401369a1d",  # the second paper of the base library, never the selected one
    "tag": "tag 2302.07302v1 to-read",
    "untag": "untag 2302.07302v1 to-read",
    "add": f"add {PAPERS / '2304.02623v1.pdf'}",
    "close": "close",
    "mode": "mode reader",
    "plan": "plan",
    "revise": "revise also list the datasets used",
    "accept": "accept",
    "reject": "reject",
    "step": "step edit 1 k=3",
    "build": "build",
    "ask": "ask status",  # a message understood as a read-only command; the state stays
    "discuss": "discuss 2302.07302v1 --turns 1",
    "memory": "memory citations",
}
PATHS = {  # how each state is reached from the base library (CiteSee, with a saved summary)
    "initial": [],
    "select-new": ["find expository writing"],
    "draft-summary": ["find expository writing", "summarize 1", "improve mention the interviews"],
    "summarized": ["find expository writing", "summarize 1", "improve mention the interviews", "save"],
    "select-view": ["list"],
    "draft-sem-search": ["sem-search how do readers keep track of citations", "improve shorter"],
    "draft-research": ["research how do readers keep track of citations", "improve shorter"],
    "draft-plan": ["mode plan", "research how do readers keep track of citations", "mode agent"],
    "draft-discussion": ["list", "discuss 1 --turns 2 --every 2", "improve what does the study measure"],
}


@pytest.fixture(scope="module")
def templates(tmp_path_factory, arxiv_server, embedder):
    root = tmp_path_factory.mktemp("desk-states")
    base = root / "base"
    desk = Desk(settings_for(base, arxiv_server.api_url), backend=FakeLLM(), embedder=embedder)
    desk.research_backends = Backends(desk.backend, None)  # rules plan, no planner model
    paper = desk.library.add_arxiv("2302.07302v1", desk.arxiv).paper
    assert desk.library.add_pdf(PAPERS / "papermage.pdf").paper.id == "local-7db401369a1d"  # for remove
    desk.store.add_revision(paper.id, "# CiteSee\n\n## Problem\nReaders lose track of citations [p. 1].", "final")
    desk.close()
    homes = {}
    for state, lines in PATHS.items():
        home = root / state
        shutil.copytree(base, home)
        desk = Desk(settings_for(home, arxiv_server.api_url), backend=FakeLLM(), embedder=embedder)
        desk.research_backends = Backends(desk.backend, None)
        for line in lines:
            if line.startswith("improve"):  # a rewrite that differs, so the draft has a revision to undo
                desk.backend.text = ("AI-supported expository writing includes real-world tasks like scholars "
                                     "writing literature reviews.")
            outcome = desk.run(line)
            assert outcome.ok, (state, line, outcome.message)
        assert desk.state == state
        desk.close()
        homes[state] = home
    return homes


@pytest.mark.parametrize("state, command", [(s, c) for s in sorted(ALL) for c in sorted(SPEC_TABLE)])
def test_command_in_state_through_the_desk(state, command, templates, tmp_path, arxiv_server, embedder):
    home = tmp_path / "home"
    shutil.copytree(templates[state], home)
    desk = Desk(settings_for(home, arxiv_server.api_url), backend=FakeLLM(), embedder=embedder)
    desk.research_backends = Backends(desk.backend, None)
    try:
        assert desk.state == state  # resumed from the persisted session
        if command == "redo" and state in SPEC_TABLE["undo"]:
            assert desk.run("undo").ok  # so that there is something to redo
        (tmp_path / "refs.bib").write_text("@book{nothing, title = {A book with neither arXiv id nor PDF}}\n")
        line = LINES[command].format(tmp=tmp_path)
        if (state, command) == ("select-view", "summarize"):  # guarded: only a paper with no saved summary
            line = f"summarize {desk.library.add_pdf(PAPERS / '2304.02623v1.pdf').paper.id}"
        if command == "notes" and state in VIEW_STATES:  # notes when viewing are the open paper's: open one first
            line = f"open 1\n{line}"
        if command in ("accept", "reject") and state in SPEC_TABLE[command]:  # accept/reject need a revision
            assert desk.run("revise also list the methods").ok
        if (state, command) == ("draft-research", "list"):  # list is open once the report is saved
            assert desk.run("save").ok
        before = desk.status()
        out, err = io.StringIO(), io.StringIO()
        code = run_shell(desk.settings, stdin=io.StringIO(line + "\nstatus\n"), out=out, err=err, desk=desk)
        allowed = SPEC_TABLE[command].get(state)
        if allowed is None:
            assert code == 1
            assert err.getvalue().startswith(f"refused: {command} is not available in {state}: ")
            assert desk.status() == before  # a refused command changes nothing
            return
        assert code == 0, err.getvalue()
        assert desk.state == (allowed[0] or state)
        if command != "quit":  # quit leaves the shell before the script's status line
            assert f"state: {desk.state}\n" in out.getvalue()
    finally:
        desk.close()
    reopened = Desk(settings_for(home, arxiv_server.api_url), backend=FakeLLM(), embedder=embedder)
    assert reopened.state == (allowed[0] or state)  # the new state was persisted
    reopened.close()
