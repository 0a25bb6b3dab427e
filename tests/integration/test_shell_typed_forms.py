"""A command typed in its own form that fails to parse is reported as such, never handed to the dispatcher
to guess at ("open 1 <huge page>" opened page 1); `research --resume N` resumes run N or names the runs
there are. FakeLLM stands in for the writer (orchestration only); the library, SQLite and tracker are real."""

from __future__ import annotations

import io

from paperdesk.shell import run_shell


def _shell(desk, lines: str) -> tuple[str, str]:
    out, err = io.StringIO(), io.StringIO()
    run_shell(desk.settings, stdin=io.StringIO(lines), out=out, err=err, desk=desk, keep_going=True)
    return out.getvalue(), err.getvalue()


def test_a_typed_command_that_fails_to_parse_says_why_and_opens_nothing(citesee_desk):
    desk = citesee_desk()
    out, err = _shell(desk, "list\nopen 1 99999999999999999999\n")
    assert "open: page 99999999999999999999 is too large" in err
    assert desk.session.reader is None  # nothing was opened
    out, err = _shell(desk, "open 1 99999\n")
    assert "there is no page 99999" in err


def test_research_resume_takes_a_run_number(citesee_desk):
    desk = citesee_desk()
    out, err = _shell(desk, "research --resume 3\n")
    assert "no unfinished run 3; unfinished runs: none" in err
    assert "unknown option" not in err
    out, err = _shell(desk, "research --resume three\n")
    assert "research --resume takes one run number" in err
