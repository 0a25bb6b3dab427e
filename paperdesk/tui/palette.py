"""Command palette provider: only the workflow commands valid now, plus the papers of the current results."""

from __future__ import annotations

from dataclasses import dataclass
from functools import partial
from typing import TYPE_CHECKING, Any, Iterator

from textual.command import DiscoveryHit, Hit, Hits, Provider

from paperdesk.core.commands.parse import Command, Ref
from paperdesk.core.commands.registry import SPECS, paper_commands
from paperdesk.tui.palette_match import described_match

if TYPE_CHECKING:
    from paperdesk.tui.app import PaperDeskApp


@dataclass(frozen=True)
class PaletteEntry:
    label: str
    line: str
    help: str
    run_now: bool


def palette_entries(app: "PaperDeskApp") -> Iterator[PaletteEntry]:
    """What the palette offers now, asked of the workflow model."""
    desk = app.desk
    if desk is None:
        return
    enabled = {row.name: row for row in desk.workflow.availability() if row.enabled}
    for name, step in (("undo", -1), ("redo", 1)):  # allowed in every draft state, but useful only with a revision to go to
        if name in enabled and not desk.can_move(step):
            del enabled[name]
    papers = paper_commands()
    for name, row in enabled.items():
        if name in papers:
            continue
        # commands that need words get their start typed into the command line; the others run as they are
        run_now = not SPECS[name].arg.needs_input
        yield PaletteEntry(row.usage, name if run_now else f"{name} ", row.summary, run_now)
    for name in papers:
        if name not in enabled:
            continue
        for n, item in enumerate(desk.session.results, start=1):
            if desk.refusal(Command(name, ref=Ref(number=n))) is not None:  # e.g. summarize of a summarized paper
                continue
            yield PaletteEntry(f"{name} {n}: {item.title}", f"{name} {n}", f"{enabled[name].summary} ({item.id})",
                               True)


class WorkflowCommands(Provider):
    """The palette's one provider: the workflow commands enabled now and the papers they can act on, then
    Textual's app-wide commands (keys, screenshot, quit ...), then "Theme: <name>" for every theme. One
    provider yields them all in this fixed order, so hits of equal score always list the same way (the hits
    of several providers arrive in no fixed order)."""

    def _run(self, entry: PaletteEntry) -> None:
        app: PaperDeskApp = self.app  # type: ignore[assignment]
        if entry.run_now:
            app.submit(entry.line)
        else:
            app.command_line.prefill(entry.line)

    def _system(self) -> list[tuple[str, str, Any, bool]]:
        return [(c[0], c[1], c[2], bool(c[3])) for c in sorted(self.app.get_system_commands(self.screen),
                                                                key=lambda command: command[0])]

    async def discover(self) -> Hits:
        for entry in palette_entries(self.app):  # type: ignore[arg-type]
            yield DiscoveryHit(entry.label, partial(self._run, entry), help=entry.help)
        for name, help_text, callback, discover in self._system():
            if discover:
                yield DiscoveryHit(name, callback, help=help_text)

    async def search(self, query: str) -> Hits:
        from paperdesk.tui.theme_choice import theme_hits

        matcher = self.matcher(query)
        for entry in palette_entries(self.app):  # type: ignore[arg-type]
            score = described_match(matcher, entry.label, entry.help)
            if score > 0:
                yield Hit(score, matcher.highlight(entry.label), partial(self._run, entry), help=entry.help)
        for name, help_text, callback, _ in self._system():
            score = described_match(matcher, name, help_text)
            if score > 0:
                yield Hit(score, matcher.highlight(name), callback, help=help_text)
        for hit in theme_hits(self.app, matcher):
            yield hit
