"""`bench route`'s real-path timing: the navigate messages it times really navigate the reader."""

import pytest

from paperdesk.bench.route_desk import MESSAGES, measure

pytestmark = pytest.mark.slow


def test_the_real_desk_path_navigates_every_timed_message(tmp_home, embedder):
    report, lines = measure(embedder, rounds=1)
    assert "skipped" not in report, report
    assert report["failures"] == []  # every message opened the page it named
    assert report["message"]["n"] == len(MESSAGES) and report["typed"]["n"] == len(MESSAGES)
    assert report["message"]["p50_ms"] > 0 and any("real desk path" in line for line in lines)
