"""The command line: workflow commands with completion, history, and inline messages below it."""

from __future__ import annotations

from typing import Callable, Iterable

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.suggester import Suggester
from textual.widgets import Input, Static

from paperdesk.core.commands.registry import paper_commands

Candidates = Callable[[], tuple[Iterable[str], Iterable[str], Iterable[str]]]


class CommandSuggester(Suggester):
    """Completes command names (enabled first), then result numbers and paper ids."""

    def __init__(self, candidates: Candidates) -> None:
        super().__init__(use_cache=False, case_sensitive=True)
        self.candidates = candidates  # () -> (enabled names, other names, paper refs)

    async def get_suggestion(self, value: str) -> str | None:
        enabled, others, refs = self.candidates()
        if " " not in value:
            word = value.lower()
            if not word:
                return None
            for name in [*enabled, *others]:
                if name.startswith(word) and name != word:
                    return name + " "
            return None
        command, _, arg = value.partition(" ")
        if command not in paper_commands() or not arg or " " in arg:
            return None
        for ref in refs:
            if ref.startswith(arg) and ref != arg:
                return f"{command} {ref}"
        return None


class CommandInput(Input):
    BINDINGS = [
        Binding("up", "history(-1)", "Previous command", show=False),
        Binding("down", "history(1)", "Next command", show=False),
        Binding("tab", "complete", "Complete", show=False),
    ]

    def __init__(self, candidates: Candidates, **kwargs) -> None:
        super().__init__(suggester=CommandSuggester(candidates), select_on_focus=False, **kwargs)
        self.history: list[str] = []
        self._cursor = 0

    def remember(self, line: str) -> None:
        if line and (not self.history or self.history[-1] != line):
            self.history.append(line)
        self._cursor = len(self.history)

    def action_history(self, step: int) -> None:
        if not self.history:
            return
        self._cursor = max(0, min(len(self.history), self._cursor + step))
        self.value = self.history[self._cursor] if self._cursor < len(self.history) else ""
        self.cursor_position = len(self.value)

    def action_complete(self) -> None:
        if self._suggestion:
            self.value = self._suggestion
            self.cursor_position = len(self.value)


INTERRUPTING = " · interrupting the running work"


class CommandLine(Vertical):
    """The input and, under it, the last message (refusals and errors in the error colour)."""

    def __init__(self, candidates: Candidates, **kwargs) -> None:
        super().__init__(**kwargs)
        self._candidates = candidates
        self._understood = ""  # the "understood as" line's text

    def compose(self) -> ComposeResult:
        yield Static("", id="understood")  # what a free-text message was understood as
        yield CommandInput(self._candidates, placeholder="type a command (help lists them): find <query>, list, "
                                                         "sem-search <query> …", id="command-input")
        yield Static("", id="command-message")

    @property
    def input(self) -> CommandInput:
        return self.query_one(CommandInput)

    def say(self, text: str, kind: str = "info") -> None:
        """Show a one-line message; kind is info, error or busy."""
        message = self.query_one("#command-message", Static)
        message.set_classes(kind)
        message.update(Text(text))  # plain text: usage like `open <n|id> [page]` is not markup

    def understood(self, text: str, interrupting: bool = False) -> None:
        """Show (or with "" hide) the "understood as" line above the input; `interrupting`: the message stops
        the running work, which the line says until that work has stopped (`interruption_over`)."""
        self._understood = text
        line = self.query_one("#understood", Static)
        line.update(text + (INTERRUPTING if interrupting else ""))
        line.display = bool(text)

    def interruption_over(self) -> None:
        """A command finished: the work a message was interrupting has stopped, so the line no longer says so."""
        if self._understood:
            self.understood(self._understood)

    def prefill(self, text: str) -> None:
        self.input.value = text
        self.input.cursor_position = len(text)
        self.screen.set_focus(self.input)  # at once: the next key typed goes to the line

    @on(Input.Changed, "#command-input")
    def _typing(self, event: Input.Changed) -> None:
        if event.value:
            message = self.query_one("#command-message", Static)
            if message.has_class("error"):
                self.say("")
