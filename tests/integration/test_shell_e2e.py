"""`paperdesk shell` end to end: scripts on stdin, the real default GGUF model, loopback arXiv.

Each test starts the shell as its own process, as a user would; outputs are
kept short (a few tokens per section) so the real model stays quick.
"""

import os
import queue
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from conftest import PAPERS

pytestmark = pytest.mark.slow


@pytest.fixture
def shell_env(tmp_home, arxiv):
    env = dict(os.environ)
    env.update({
        "PAPERDESK_ARXIV_API_URL": arxiv.api_url,
        "PAPERDESK_ARXIV_DELAY_SECONDS": "0",
        "PAPERDESK_SUMMARY_SECTION_TOKENS": "16",
        "PAPERDESK_SUMMARY_MAP_TOKENS": "16",
        "PAPERDESK_SUMMARY_EXCERPTS": "3",
        "PAPERDESK_ANSWER_MAX_TOKENS": "24",
        "PAPERDESK_RESEARCH_MAX_TOKENS": "24",
        "PAPERDESK_LLM_N_CTX": "2048",
    })
    return env


def shell(env, script: str, *args: str, timeout: float = 300) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "paperdesk", "shell", *args], input=script, env=env,
                          capture_output=True, text=True, timeout=timeout)


class LiveShell:
    """A shell process fed line by line, whose output can be awaited."""

    def __init__(self, env):
        # Ctrl-C as from a terminal: a test run started in the background (`cmd &` without job control)
        # ignores SIGINT, and the shell would inherit that and never see the interrupt.
        self.proc = subprocess.Popen([sys.executable, "-u", "-m", "paperdesk", "shell"], env=env, text=True,
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                     preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
        self.lines: queue.Queue[str] = queue.Queue()
        self.seen = ""
        threading.Thread(target=self._pump, daemon=True).start()

    def _pump(self):
        while True:
            chunk = self.proc.stdout.read(1)
            if not chunk:
                break
            self.lines.put(chunk)

    def send(self, line: str):
        self.proc.stdin.write(line + "\n")
        self.proc.stdin.flush()

    def wait_for(self, text: str, timeout: float = 240) -> None:
        deadline = time.monotonic() + timeout
        while text not in self.seen:
            try:
                self.seen += self.lines.get(timeout=max(0.01, deadline - time.monotonic()))
            except queue.Empty:
                raise AssertionError(f"{text!r} never appeared; {self.signal_state()}; output so far:\n{self.seen}"
                                     ) from None

    def signal_state(self) -> str:
        """The shell's ignored and caught signal masks (bit 2 is SIGINT), for a Ctrl-C that went unanswered."""
        try:
            status = Path(f"/proc/{self.proc.pid}/status").read_text().splitlines()
        except OSError:
            return "shell process gone"
        return ", ".join(line for line in status if line.startswith(("SigIgn", "SigCgt")))


def test_find_summarize_improve_notes_save_list_open_summary(shell_env):
    result = shell(shell_env, "\n".join([
        # the improve names one section (the method): the real model rewrites one, not four; the flow is under test
        "find expository writing", "summarize 1", "improve method: mention the interviews",
        "notes check figure 2 later", "save", "list", "open 1", "summary 1", "status"]) + "\n")
    out = result.stdout
    assert result.returncode == 0, result.stderr
    # improve stores a changed revision, or (the tiny test model's rewrite not holding up) says why and stores none
    improved = "[summary revision 2" in out
    assert improved or "no new revision:" in out
    for expected in ["[find: initial -> select-new]", "1. 2304.02623v1", "[summarize: select-new -> draft-summary]",
                     "## Problem", "## Limitations", "[summary revision 1",
                     "check figure 2 later", "[save: draft-summary -> summarized]",
                     "[list: summarized -> select-view]", "page 1 of 4", f"(revision {2 if improved else 1}, final)"]:
        assert expected in out, expected
    assert out.rstrip().endswith("state: select-view\nselected: none\nresults: 1\ndraft: none\nmode: agent\n"
                                "network: online\ndialogue: 0 messages")


def test_find_summarize_abandon_leaves_no_trace(shell_env):
    result = shell(shell_env, "\n".join([
        "find expository writing", "summarize 1", "abandon", "list", "sem-search expository writing support",
        "status"]) + "\n")
    assert result.returncode == 0, result.stderr
    out = result.stdout
    assert "removed 2304.02623v1 and its index entries" in out
    assert "the library is empty" in out
    assert "Nothing in your library answers this" in out
    assert "state: initial" in out


def test_sem_search_then_save(shell_env, library):
    library.add_pdf(PAPERS / "2302.07302v1.pdf")
    library.close()
    result = shell(shell_env, "sem-search how do readers keep track of citations\nsave citation tracking\nstatus\n")
    assert result.returncode == 0, result.stderr
    out = result.stdout
    assert "[sem-search: initial -> draft-sem-search]" in out and "Sources:\n[1] CiteSee" in out
    assert "saved as report #1 'citation tracking'" in out
    assert "state: draft-sem-search" in out and "draft: answer (revision 1)" in out


def test_a_refused_command_fails_the_script_unless_keep_going(shell_env):
    stopped = shell(shell_env, "improve more detail\nstatus\n")
    assert stopped.returncode == 1
    assert "refused: improve is not available in initial: summarize a paper first" in stopped.stderr
    assert "state:" not in stopped.stdout
    kept = shell(shell_env, "improve more detail\nstatus\n", "--keep-going")
    assert kept.returncode == 1 and "state: initial" in kept.stdout


STORED_AT_KILL = {
    "[summary revision 1": "draft: summary (revision 1)",  # finished
    "## Problem": "draft: summary (no revision yet)",  # no section finished yet
    "## Method": "draft: summary (revision 1, interrupted)",  # the finished problem section is kept
}


@pytest.mark.parametrize("kill_when", list(STORED_AT_KILL))
def test_resume_after_kill_9_in_draft_summary(shell_env, kill_when, tmp_home):
    if kill_when == "## Problem":  # a long first section: the kill lands before it is finished (and stored)
        shell_env["PAPERDESK_SUMMARY_SECTION_TOKENS"] = "400"
    live = LiveShell(shell_env)
    live.send("find expository writing\nsummarize 1")
    live.wait_for(kill_when)
    live.proc.send_signal(signal.SIGKILL)
    live.proc.wait(30)
    shell_env["PAPERDESK_SUMMARY_SECTION_TOKENS"] = "16"
    stored = STORED_AT_KILL[kill_when]
    if kill_when == "## Method":
        from paperdesk.core.db.store import Store

        store = Store(tmp_home / "library.sqlite")
        kept = store.current_revision("2304.02623v1")
        store.close()
        assert kept.status == "interrupted" and "## Problem\n" in kept.text and "## Method" not in kept.text
        assert len(kept.text.split("## Problem\n", 1)[1].strip()) > 20  # the section's sentences, not a heading
    result = shell(shell_env, "status\nimprove mention the design\nsave\nstatus\n")
    assert result.returncode == 0, result.stderr
    out = result.stdout
    assert out.startswith("[resumed in draft-summary]")
    assert "state: draft-summary\nselected: 2304.02623v1  Beyond Summarization" in out and stored in out
    assert "[save: draft-summary -> summarized]" in out and "state: summarized" in out


def test_ctrl_c_cancels_the_generation_and_the_shell_goes_on(shell_env):
    shell_env["PAPERDESK_SUMMARY_SECTION_TOKENS"] = "400"
    shell_env["PAPERDESK_SUMMARY_MAP_TOKENS"] = "400"
    live = LiveShell(shell_env)
    live.send("find expository writing")
    live.send("summarize 1")
    live.wait_for("## Problem\n")
    live.proc.send_signal(signal.SIGINT)
    live.wait_for("interrupted")
    live.send("status")
    live.wait_for("network: online")
    live.proc.stdin.close()
    assert live.proc.wait(60) == 0
    assert "^C: cancelling" in live.seen
    assert "draft: summary (revision 1, interrupted)" in live.seen


def test_a_line_typed_during_work_answers_beside_it_or_interrupts_it(shell_env):
    """Through a pipe, as a user typing while the summary is written: a read-only line is answered and the
    summary goes on; a message that needs the desk stops it (the partial summary is kept) and then runs."""
    shell_env["PAPERDESK_SUMMARY_SECTION_TOKENS"] = "400"
    shell_env["PAPERDESK_SUMMARY_MAP_TOKENS"] = "400"
    live = LiveShell(shell_env)
    live.send("find expository writing\nsummarize 1")  # typed ahead: summarize runs after find, in order
    live.wait_for("## Problem\n")
    live.send("history")  # read-only: answered beside the summary, which goes on
    live.wait_for("> history\n")
    live.wait_for("[select-new] find expository writing  -> ok")
    live.send("the summary should mention the interviews")
    live.wait_for("[interrupting the running summary for: -> improve the summary should mention the interviews")
    live.wait_for("kept as interrupted")
    live.wait_for("-> improve the summary should mention the interviews")  # then the message runs
    live.send("status")  # beside the improve: the interrupted summary is the draft it works on
    live.wait_for("dialogue:")
    live.proc.kill()
    live.proc.wait(30)
    out = live.seen
    assert out.index("> history") < out.index("> the summary should mention") < out.index("[interrupting")
    assert out.count("[summarize: select-new -> draft-summary]") == 1  # the summary was never restarted
    # status is answered beside the improve; a short improve may already have stored revision 2 on top of it
    assert "kept as interrupted" in out
    assert "draft: summary (revision 1, interrupted)" in out or "draft: summary (revision 2)" in out


def test_at_a_terminal_a_message_typed_during_the_summary_interrupts_it(shell_env, library):
    """The interactive shell on a pseudo-terminal: readline's prompt when idle, and while the summary is
    written the line typed (echoed by the terminal) is answered beside it or stops it."""
    import pty
    import select

    library.add_pdf(PAPERS / "2302.07302v1.pdf")
    library.close()
    shell_env.update({"PAPERDESK_SUMMARY_SECTION_TOKENS": "400", "PAPERDESK_SUMMARY_MAP_TOKENS": "400",
                      "TERM": "dumb"})
    master, slave = pty.openpty()
    proc = subprocess.Popen([sys.executable, "-m", "paperdesk", "shell"], env=shell_env, stdin=slave, stdout=slave,
                            stderr=slave, close_fds=True)
    os.close(slave)
    seen = b""

    def wait_for(text: str, timeout: float = 240) -> None:
        nonlocal seen
        deadline = time.monotonic() + timeout
        while text.encode() not in seen:
            assert time.monotonic() < deadline, f"{text!r} never appeared:\n{seen.decode(errors='replace')}"
            if select.select([master], [], [], 0.2)[0]:
                seen += os.read(master, 4096)

    try:
        wait_for("paperdesk (initial)> ")
        os.write(master, b"list\n")
        wait_for("paperdesk (select-view)> ")
        os.write(master, b"summarize 1\n")
        wait_for("## Problem")
        os.write(master, b"history\n")  # read-only: answered, the summary goes on
        wait_for("[select-view] list  -> ok")
        os.write(master, b"the summary should mention the interviews\n")
        wait_for("[interrupting the running summary for: -> improve the summary should mention the interviews")
        wait_for("kept as interrupted")
        wait_for("-> improve the summary should mention the interviews")
    finally:
        proc.kill()
        proc.wait(30)
        os.close(master)
