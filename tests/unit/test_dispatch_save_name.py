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


@pytest.mark.parametrize("typed, name", [
    ("save this answer as table1", "table1"),
    ("save the report named reading tools", "reading tools"),
    ("save it as \"citation trackers\"", "citation trackers"),
    ("save as table1", "table1"),
    ("save this answer", None),
    ("save it please", None),
    ("save table1", "table1"),
    ("save Reading as a process", "Reading as a process"),  # a name of its own, "as" and all
])
def test_a_typed_save_takes_the_name_after_as_not_the_words_before_it(typed, name):
    from paperdesk.core.handlers.drafts import report_name

    assert report_name(typed.partition(" ")[2]) == name
