"""save's name from free words: only a quoted name or one after as / named / called counts."""

import pytest

from paperdesk.core.dispatch.rules import save_name


@pytest.mark.parametrize("rest, name", [
    ("this answer", None),
    ("it please", None),
    ("the report", None),
    ("it as citation trackers", "citation trackers"),
    ("this answer named reading tools", "reading tools"),
    ('"reading tools"', "reading tools"),
    ("\u201creading tools\u201d", "reading tools"),
    ("the draft under the name reader study.", "reader study"),
])
def test_only_a_quoted_or_introduced_name_names_the_report(rest, name):
    assert save_name(rest) == name
