"""A research run killed with kill -9 mid-run resumes without redoing its completed steps."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from paperdesk.core.research.plan import COMPLETED, IN_PROGRESS, PENDING
from paperdesk.core.research.tracker import WHOLE, Tracker

HERE = Path(__file__).parent
sys.path.insert(0, str(HERE))

import research_crash_runner as runner  # noqa: E402


def test_kill_9_mid_run_then_resume_redoes_nothing_finished(tmp_path: Path):
    db, log = tmp_path / "library.sqlite", tmp_path / "calls.log"
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(Path.cwd()), str(HERE), os.environ.get("PYTHONPATH", "")])}
    proc = subprocess.Popen([sys.executable, str(HERE / "research_crash_runner.py"), str(db), str(log)],
                            stdout=subprocess.PIPE, text=True, env=env)
    run_id = int(proc.stdout.readline())
    tracker = Tracker(db)
    try:
        deadline = time.monotonic() + 60
        while True:  # wait until step 1 is done and step 2 is running
            rows = {t.step_id: t.status for t in tracker.tasks(run_id) if t.iteration == WHOLE}
            if rows.get(1) == COMPLETED and rows.get(2) == IN_PROGRESS:
                break
            assert time.monotonic() < deadline and proc.poll() is None, f"runner never reached step 2: {rows}"
            time.sleep(0.01)
        proc.send_signal(signal.SIGKILL)
        proc.wait(10)
        assert [r.id for r in tracker.unfinished()] == [run_id]
        assert tracker.reopen(run_id) == 1  # step 2's IN_PROGRESS row is PENDING again
        assert tracker.task(run_id, 2, WHOLE).status == PENDING
        before = log.read_text().splitlines()
        ex = runner.executor(tracker, log)
        out = ex.execute(run_id, runner.plan())
        after = log.read_text().splitlines()[len(before):]
        assert after == ["library_search b", "answer q?"]  # step 1 is not run again
        assert ex.calls == 2
        assert set(out.results) == {"found", "more", "ans"}
        assert all(t.status == COMPLETED for t in tracker.tasks(run_id))
    finally:
        if proc.poll() is None:
            proc.kill()
        tracker.close()
