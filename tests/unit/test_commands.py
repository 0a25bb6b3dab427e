"""Command lines -> Command: every argument shape, and errors that say how to write it."""

import pytest

from paperdesk.core.commands.parse import COMMANDS, CommandError, Ref, parse


@pytest.mark.parametrize(
    "line, name, text, ref, page",
    [
        ("find citation context", "find", "citation context", None, None),
        ("  find   spaced   words ", "find", "spaced   words", None, None),
        ("summarize 3", "summarize", "", Ref(number=3), None),
        ("summarize 2302.07302v1", "summarize", "", Ref(paper_id="2302.07302v1"), None),
        ("summarize arXiv:2302.07302", "summarize", "", Ref(paper_id="arXiv:2302.07302"), None),
        ("summary local-0123456789ab", "summary", "", Ref(paper_id="local-0123456789ab"), None),
        ("open 1 4", "open", "", Ref(number=1), 4),
        ("open 2302.07302", "open", "", Ref(paper_id="2302.07302"), None),
        ("improve say more about the method", "improve", "say more about the method", None, None),
        ("notes", "notes", "", None, None),
        ("notes check figure 2", "notes", "check figure 2", None, None),
        ("save", "save", "", None, None),
        ("save my reading list", "save", "my reading list", None, None),
        ("list", "list", "", None, 1),
        ("list --page 3", "list", "", None, 3),
        ("list --page=2", "list", "", None, 2),
        ("sem-search how do readers track citations", "sem-search", "how do readers track citations", None, None),
        ("EXIT", "quit", "", None, None),
        ("help improve", "help", "improve", None, None),
        ("? find", "help", "find", None, None),
    ],
)
def test_parses(line, name, text, ref, page):
    command = parse(line)
    assert (command.name, command.text, command.ref, command.page) == (name, text, ref, page)
    assert command.raw == line.strip()


@pytest.mark.parametrize(
    "line, message",
    [
        ("", "empty command"),
        ("sem-serch foo", "did you mean sem-search"),
        ("lsit", "did you mean list"),
        ("frobnicate", "unknown command 'frobnicate'"),
        ("find", "find needs <query>"),
        ("improve   ", "improve needs <feedback>"),
        ("summarize", "needs a result number or a paper id"),
        ("summarize 0", "starts at 1"),
        ("summarize banana", "neither a result number nor a paper id"),
        ("summarize 1 2", "too many arguments"),
        ("open 1 two", "page must be a whole number"),
        ("open 1 0", "starts at 1"),
        ("list --page", "--page needs a value"),
        ("list --sort size", "--sort takes added, year, title"),
        ("list --year 20x", "--year takes a year"),
        ("list --colour red", "unknown option --colour"),
        ("list --page 0", "starts at 1"),
        ("abandon now", "abandon takes no argument"),
        ("help frobnicate", "no command 'frobnicate'"),
        ('summarize "1', "No closing quotation"),
    ],
)
def test_errors_name_the_fix(line, message):
    with pytest.raises(CommandError, match=message.replace("[", r"\[").replace("?", r"\?")):
        parse(line)


def test_every_command_has_usage_and_summary():
    for spec in COMMANDS:
        assert spec.usage.startswith(spec.name) and spec.summary
